import { RelayRequests, type RelayRequestLog } from './relay-requests.js';
import {
  engineProtocol,
  engineSecretProtocolPrefix,
  type HelloFrame,
  type SlotsFrame,
} from './socket-frames.js';

export type { RelayRequestLog } from './relay-requests.js';

/**
 * Slots a tab announces before its engine holds a model: llama.cpp's `n_parallel` default, which
 * the wllama engine opens; a loaded model's own count replaces it.
 */
export const defaultEngineSlots = 4;

/** The first reconnect delay, and the request body bytes a tab lets the relay send ahead. */
export const relayConnectionDefaults = { retryMs: 1000, bodyWindow: 8 * 1024 * 1024 } as const;

/** The connection's state: retrying after `disconnected`, for good after `closed`. */
export type RelayState = 'connecting' | 'connected' | 'disconnected' | 'closed';

/** What {@link connectRelay} reports. */
export type RelayEvent =
  | { type: 'state'; state: RelayState; detail?: string }
  | { type: 'request'; entry: RelayRequestLog };

/** Options of {@link connectRelay}. */
export interface ConnectRelayOptions {
  /** The relay's engine endpoint, e.g. `ws://127.0.0.1:1234/lmtab/engine`. */
  url: string;
  /**
   * A port to the engine worker (the engine host's `connect()`), or undefined when this tab does
   * not hold the engine: requests then go through the service worker by `fetch`. Called until it
   * gives a port; the port is kept for the life of the socket.
   */
  connect: () => MessagePort | undefined;
  /**
   * The relay's engine secret, asked before each connection attempt (it may change when the relay
   * restarts); without it the relay refuses the tab.
   */
  secret: () => Promise<string | undefined>;
  /** Told about state changes and each request served; default: nothing. */
  onEvent?: (event: RelayEvent) => void;
  /**
   * The engine's parallel slots now (those of the model it holds), or undefined while it cannot
   * tell (no model loaded); asked once the tab has joined (with {@link defaultEngineSlots}) and
   * after each request it served, and announced to the relay when they change. Default: always
   * undefined.
   */
  slots?: () => Promise<number | undefined>;
  /** lmtab's version, reported to the relay. */
  version?: string;
  /** Milliseconds before reconnecting after losing the relay, doubling up to 30 s; default in {@link relayConnectionDefaults}. */
  retryMs?: number;
  /** Fetch used when there is no port; default `globalThis.fetch` (the service worker answers). */
  fetch?: typeof globalThis.fetch;
  /** Origin that makes request URLs absolute; default `location.origin`. */
  origin?: string;
  /**
   * Request-body bytes the relay may send ahead of the engine's reads, per request: the most of an
   * upload this tab holds at once. Default in {@link relayConnectionDefaults}.
   */
  bodyWindow?: number;
}

/** A tab's link to the relay. */
export interface RelayConnection {
  readonly state: RelayState;
  /** Disconnects for good, stopping the requests in progress. */
  close(): void;
}

/**
 * Connects this tab to a relay as an engine: request frames arrive over a WebSocket, go to the
 * engine worker over a MessagePort (or through the service worker), and the response frames go
 * back as they come. Reconnects when the relay restarts, until closed.
 */
export function connectRelay(options: ConnectRelayOptions): RelayConnection {
  const retryMs = options.retryMs ?? relayConnectionDefaults.retryMs;
  const emit = options.onEvent ?? (() => undefined);
  const bodyWindow = options.bodyWindow ?? relayConnectionDefaults.bodyWindow;
  let state: RelayState = 'connecting';
  let socket: WebSocket | undefined;
  let delay = retryMs;
  /** The slots the relay was last told. */
  let announced = defaultEngineSlots;
  let retry: ReturnType<typeof setTimeout> | undefined;
  /** The secret this socket joined with: the tab shows it to fetch a request's body. */
  let joinedWith = '';

  const setState = (next: RelayState, detail?: string) => {
    state = next;
    emit({ type: 'state', state: next, ...(detail === undefined ? {} : { detail }) });
  };

  /** The engine's slots, or undefined when it cannot tell (or the question fails). */
  const currentSlots = async (): Promise<number | undefined> => {
    try {
      const slots = await options.slots?.();
      return slots !== undefined && Number.isInteger(slots) && slots > 0 ? slots : undefined;
    } catch {
      return undefined;
    }
  };

  /** Tells the relay when the engine's slots changed (a model with other slots was loaded). */
  const announceSlots = async (to: WebSocket) => {
    const slots = await currentSlots();
    if (slots === undefined || slots === announced || to.readyState !== WebSocket.OPEN) return;
    announced = slots;
    to.send(JSON.stringify({ type: 'slots', capacity: slots } satisfies SlotsFrame));
  };

  const requests = new RelayRequests({
    url: options.url,
    origin: options.origin ?? location.origin,
    bodyWindow,
    connect: options.connect,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    secret: () => joinedWith,
    onServed: (to, entry) => {
      emit({ type: 'request', entry });
      void announceSlots(to);
    },
    onRejoined: ({ asideMs, silentMs }) =>
      setState(
        'connected',
        `the relay set this tab's engine aside for ${Math.round(asideMs / 1000)} s: its page ` +
          `answered nothing for ${Math.round(silentMs / 1000)} s (a frozen or suspended tab); ` +
          'it serves requests again',
      ),
  });

  const retryLater = (detail: string) => {
    setState('disconnected', detail);
    retry = setTimeout(() => void open(), delay);
    delay = Math.min(delay * 2, 30_000);
  };

  const open = async () => {
    setState('connecting');
    let secret: string | undefined;
    try {
      secret = await options.secret();
    } catch (error) {
      secret = undefined;
      if (state === 'closed') return;
      return retryLater(
        `could not read the relay's engine secret: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (state === 'closed') return;
    if (secret === undefined) {
      return retryLater(
        'this page has no engine secret for the relay: open the pairing link `lmtab serve` prints',
      );
    }
    joinedWith = secret;
    const current = new WebSocket(options.url, [
      engineProtocol,
      `${engineSecretProtocolPrefix}${secret}`,
    ]);
    socket = current;
    current.binaryType = 'arraybuffer';
    current.onopen = () => {
      delay = retryMs;
      // The tab joins at once, with the default slots; the engine's own follow as a slots frame.
      // Waiting for them first made a page the service worker did not control yet ask the relay
      // itself (which has no engine until this tab joins): a join late by the relay's engine wait,
      // and with `--headless` a headless engine started for nothing.
      announced = defaultEngineSlots;
      const hello: HelloFrame = {
        type: 'hello',
        capacity: announced,
        bodyWindow,
        pullsBodies: true,
        heartbeat: true,
        ...(options.version === undefined ? {} : { version: options.version }),
      };
      current.send(JSON.stringify(hello));
      setState('connected');
      void announceSlots(current);
    };
    current.onmessage = (event: MessageEvent) => requests.receive(current, event.data);
    current.onclose = (event) => {
      if (socket !== current) return;
      // The relay is gone: its clients are too, so the work for them stops.
      requests.stopAll();
      requests.closePort();
      if (state === 'closed') return;
      // A refused upgrade (wrong secret, wrong Host) looks like an unreachable relay to a page.
      const detail =
        event.reason !== ''
          ? event.reason
          : `the relay at ${options.url} is unreachable or refused this tab's engine secret`;
      retryLater(detail);
    };
  };

  void open();
  return {
    get state() {
      return state;
    },
    close() {
      if (state === 'closed') return;
      clearTimeout(retry);
      setState('closed');
      requests.stopAll();
      socket?.close(1000, 'stopped by the tab');
    },
  };
}
