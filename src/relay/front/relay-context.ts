import type { IncomingMessage } from 'node:http';
import type { RelayHealth } from '../../bridge/wire.js';
import type { LmtabError } from '../../errors/index.js';
import type { ClientKeys } from '../trust/client-auth.js';
import type { EnginePool } from '../exchange/engine-pool.js';
import type { EngineSocket } from '../exchange/engine-socket.js';
import type { PulledBodies } from '../exchange/pulled-bodies.js';
import type { RelayLogEntry } from '../exchange/forward-request.js';
import type { EngineEvent, RelayOptions } from '../relay-options.js';
import type { RelayMetrics } from './relay-metrics.js';

/** What the relay's HTTP handler and its socket upgrades share (made once by `createRelay`). */
export interface RelayContext {
  options: RelayOptions;
  /** The interface it listens on. */
  host: string;
  /** Folder of the built app, resolved. */
  appDir: string;
  corsOrigins: readonly string[];
  maxBodyBytes: number;
  maxBlobBytes: number;
  engineSecret: string;
  clientKeys: ClientKeys;
  /** The engine tabs and the queue of requests waiting for a slot. */
  pool: EnginePool<EngineSocket>;
  /** Large request bodies, fetched by the engine tabs (the WebSocket carries the small ones). */
  bodies: PulledBodies;
  /** The next request's id, for the request log. */
  nextRequestId(): string;
  /** Why a request's `Host` is refused (DNS rebinding), or undefined when it names this relay. */
  hostRefusal(request: IncomingMessage): LmtabError | undefined;
  /** The body of `/health`. */
  health(): RelayHealth;
  /** What `GET /metrics` counts. */
  metrics: RelayMetrics;
  /** Told about each API request once it is over: counted, then the `onLog` option. */
  logRequest(entry: RelayLogEntry): void;
  /** Told when an engine tab joins or leaves: counted, then the `onEngine` option. */
  engineEvent(event: EngineEvent): void;
}
