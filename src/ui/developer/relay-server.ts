import {
  connectRelay,
  fetchRelaySession,
  type RelayConnection,
  type RelayRequestLog,
  type RelayState,
} from '../../bridge/index.js';
import {
  engineSocketPath,
  pairingFragmentName,
  type RelayHealth,
  type RelaySession,
} from '../../bridge/wire.js';
import { createApiClient, type ApiClient } from '../client/api-client.js';

/** Relay log entries the Developer tab keeps. */
export const defaultLogLimit = 200;

/** localStorage key of the engine secret a pairing link gave this origin. */
const pairedSecretKey = 'lmtab.relay.pairedSecret';

/** Options of {@link RelayServer}. */
export interface RelayServerOptions {
  /** A port to the engine worker when this tab holds the engine (the engine host's `connect`). */
  connect: () => MessagePort | undefined;
  /** lmtab's version, reported to the relay. */
  version?: string;
  /** Log entries kept, newest first; default {@link defaultLogLimit}. */
  logLimit?: number;
  /** The page's API, asked for the engine's slots; default a client of the page's own. */
  api?: ApiClient;
}

/** The slots of the models the engine holds (the most of them), or undefined when it holds none. */
async function engineSlots(api: ApiClient): Promise<number | undefined> {
  const { loaded } = await api.engineStatus();
  return loaded.length === 0 ? undefined : Math.max(...loaded.map((model) => model.parallel));
}

/**
 * This tab's "server": its link to the relay that served the page, with the request log. Created
 * once by the page's main and handed to `<lmtab-server-panel>`; it fires `change` on every update.
 */
export class RelayServer extends EventTarget {
  /** `stopped` until started, then the connection's state. */
  state: RelayState | 'stopped' = 'stopped';
  /** Why the connection is down, when it is. */
  detail = '';
  /** Requests served, newest first. */
  log: RelayRequestLog[] = [];
  private connection: RelayConnection | undefined;
  private readonly options: RelayServerOptions;

  constructor(options: RelayServerOptions) {
    super();
    this.options = options;
    this.keepPairedSecret();
  }

  /**
   * Takes the engine secret out of a link the relay printed (`#pair=...`, a fragment: never sent
   * over HTTP) into this origin's storage, and out of the address bar and history, as the page
   * opens: the relay tells its secret and key to no page that cannot show it.
   */
  private keepPairedSecret(): void {
    const fragment = new URLSearchParams(location.hash.slice(1)).get(pairingFragmentName);
    if (fragment === null || fragment === '') return;
    localStorage.setItem(pairedSecretKey, fragment);
    history.replaceState(history.state, '', location.pathname + location.search);
  }

  /** What the relay that served this page says of itself; undefined when no relay served it. */
  async health(): Promise<RelayHealth | undefined> {
    try {
      const response = await fetch('/health', { cache: 'no-store' });
      const type = response.headers.get('content-type') ?? '';
      if (!response.ok || !type.startsWith('application/json')) return undefined;
      const body = (await response.json()) as Partial<RelayHealth>;
      return body.status === 'ok' && typeof body.port === 'number'
        ? (body as RelayHealth)
        : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * What the relay tells the page it serves on this machine (the engine secret and the API key),
   * once the page holds the secret from the link the relay printed; undefined otherwise, and for a
   * page on another device or origin.
   */
  async session(): Promise<RelaySession | undefined> {
    const secret = this.secret();
    return secret === undefined ? undefined : fetchRelaySession(secret);
  }

  /** The engine secret a link the relay printed gave this origin (kept in its storage). */
  private secret(): string | undefined {
    return localStorage.getItem(pairedSecretKey) ?? undefined;
  }

  /** Connects this tab to the relay as an engine (Start Server). */
  start(): void {
    if (this.connection) return;
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const limit = this.options.logLimit ?? defaultLogLimit;
    this.connection = connectRelay({
      url: `${scheme}//${location.host}${engineSocketPath}`,
      connect: this.options.connect,
      secret: () => Promise.resolve(this.secret()),
      slots: () => engineSlots(this.options.api ?? createApiClient()),
      version: this.options.version,
      onEvent: (event) => {
        if (event.type === 'state') {
          this.state = event.state;
          this.detail = event.detail ?? '';
        } else {
          this.log = [event.entry, ...this.log].slice(0, limit);
        }
        this.dispatchEvent(new Event('change'));
      },
    });
  }

  /** Disconnects this tab from the relay (Stop Server). */
  stop(): void {
    this.connection?.close();
    this.connection = undefined;
    this.state = 'stopped';
    this.detail = '';
    this.dispatchEvent(new Event('change'));
  }
}
