// What a relay is started with and what it gives back (`createRelay`); the defaults named here
// are in relay-defaults.ts and the API's body limits.
import type { Server } from 'node:http';
import type { HeadlessState } from '../bridge/wire.js';
import type { ClientKeys } from './trust/client-auth.js';
import type { EnginePoolStats } from './exchange/engine-pool.js';
import type { RelayLogEntry } from './exchange/forward-request.js';

/** Options of {@link createRelay}. */
export interface RelayOptions {
  /** Folder of the built app (`dist/`). */
  appDir: string;
  /** Interface to listen on; default {@link defaultRelayHost} (use `0.0.0.0` for the LAN). */
  host?: string;
  /** Port; default {@link defaultRelayPort}; 0 picks a free one. */
  port?: number;
  /** lmtab's version, reported by `/health`. */
  version: string;
  /** Requests that may wait for a free engine slot before 503 `engine_busy`; default {@link defaultQueueLimit}. */
  queueLimit?: number;
  /**
   * Page origins allowed to call the API (`*` for any: every site the user visits may then use the
   * engine); default none: same origin only. Never opens the engine socket.
   */
  corsOrigins?: readonly string[];
  /** Largest request body in bytes before 413; default {@link defaultMaxBodyBytes}. */
  maxBodyBytes?: number;
  /** Largest model file uploaded to `/api/blobs/...` (Ollama's `create`); default {@link defaultMaxBlobBytes}. */
  maxBlobBytes?: number;
  /**
   * Starts an engine when a request finds none connected (the headless launcher); it gets the
   * app URL that makes a page connect to this relay, with the engine secret in its fragment. Without it such requests get 503 `no_engine`.
   */
  startEngine?: (engineUrl: string) => Promise<void>;
  /** Milliseconds requests wait for a started engine to connect; default {@link defaultEngineWaitMs}. */
  engineWaitMs?: number;
  /** Milliseconds between pings to engine tabs; default {@link defaultHeartbeatMs}. */
  heartbeatMs?: number;
  /**
   * The secret engine tabs offer to join (see `loadOrCreateSecret`); default a random one made now.
   * Pages get it only from the links the relay prints ({@link Relay.appUrl}, {@link Relay.pairingUrl}).
   */
  engineSecret?: string;
  /** Names besides loopback, the bound address and LAN addresses that the `Host` may be. */
  allowedHosts?: readonly string[];
  /** API keys `/v1` and `/api` require; default none (open). */
  clientKeys?: ClientKeys;
  /**
   * Milliseconds an engine may send nothing for a request (no head, no body piece) before the
   * request ends with `engine_timeout` and its slot is freed; counted once the request body is
   * sent. Default {@link defaultEngineTimeoutMs}.
   */
  engineTimeoutMs?: number;
  /**
   * Milliseconds a stopping relay lets answers in progress finish, engines still connected, before
   * it ends the rest with their protocol's error. Default {@link defaultDrainMs}.
   */
  drainMs?: number;
  /** The headless engine's state, for `/health`, when the relay launches one. */
  headlessState?: () => { state: HeadlessState; detail?: string };
  /** Told about each API request once it is over. */
  onLog?: (entry: RelayLogEntry) => void;
  /** Told when an engine tab joins or leaves, or is set aside and rejoins. */
  onEngine?: (event: EngineEvent) => void;
  /**
   * How often the relay asks each engine tab's page whether it runs, and how long a page may
   * answer nothing before its tab is set aside; default in `relay-defaults.ts`.
   */
  engineHeartbeat?: { everyMs: number; silentMs: number };
}

/**
 * An engine tab joined (with its slots and version) or left, or was set aside because its page
 * answered nothing for `silentMs` (frozen, suspended) and rejoined after `asideMs`; `engines`
 * counts those that take requests.
 */
export interface EngineEvent {
  type: 'connected' | 'disconnected' | 'set-aside' | 'rejoined';
  engines: number;
  capacity?: number;
  version?: string;
  silentMs?: number;
  asideMs?: number;
}

/** A running relay. */
export interface Relay {
  /** The address it listens on, e.g. `http://127.0.0.1:1234`. */
  url: string;
  /** The app URL that makes a page serve as this relay's engine (`/?relay=connect`). */
  engineUrl: string;
  /**
   * {@link engineUrl} with the engine secret in its fragment (`#pair=...`): the page joins as an
   * engine at once (headless engines, tabs on other devices). Keep it private.
   */
  pairingUrl(base?: string): string;
  /**
   * The app's address with the engine secret in its fragment (`/#pair=...`), for the person who
   * started the relay: the page keeps the secret, joins when they click Start Server, and reads
   * the API key from `/lmtab/session`. Keep it private.
   */
  appUrl(base?: string): string;
  server: Server;
  /** Engines, their busy slots, and the queue. */
  stats(): EnginePoolStats;
  close(): Promise<void>;
}
