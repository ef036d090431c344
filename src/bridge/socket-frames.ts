import type { AbortFrame, EndFrame, ErrorFrame, HeadFrame } from './frames.js';

/**
 * The frame protocol over the relay's WebSocket (`/lmtab/engine`). Control frames are JSON text
 * messages; body bytes travel as binary messages that start with the request's id, so one socket
 * carries many requests at once:
 *
 *   binary message = [u8 id length][id, UTF-8][body bytes]
 *
 * Relay to tab: `request` (then binary request-body pieces and `end` when `hasBody`), `abort`.
 * Tab to relay: `hello` (first), then per request `head`, binary response-body pieces, and `end`
 * or `error`; while a request body arrives, `credit` frames. The direction gives a binary message
 * its meaning.
 *
 * Request bodies are flow-controlled: a tab whose `hello` names a `bodyWindow` receives at most that
 * many body bytes of a request beyond those it granted back with `credit` (it grants them once its
 * engine has read them), so a multi-gigabyte upload never piles up in the tab. A tab whose `hello`
 * says `pullsBodies` gets large bodies another way: the request frame names a `bodyUrl` on the
 * relay, which the tab fetches with the engine secret, and no pieces or `end` follow.
 */

/** Path of the WebSocket endpoint that engine tabs connect to. */
export const engineSocketPath = '/lmtab/engine';

/** Where an engine tab fetches a request's body (`bodyUrl`), followed by its one-time token. */
export const pulledBodyPath = '/lmtab/engine/body/';

/**
 * The WebSocket subprotocol engine tabs speak. A tab offers it together with
 * `${engineSecretProtocolPrefix}<secret>` (browsers cannot set headers on a WebSocket); the relay
 * refuses the upgrade without the right secret and answers with this protocol alone.
 */
export const engineProtocol = 'lmtab-engine';

/** Prefix of the subprotocol that carries the relay's engine secret. */
export const engineSecretProtocolPrefix = 'lmtab-secret.';

/**
 * Where the page the relay serves reads the API key (for the Developer tab) and the engine secret:
 * answered only to a request that shows the secret (`Authorization: Bearer SECRET`, from the link
 * the relay printed), same-origin from a loopback page, never with CORS headers.
 */
export const relaySessionPath = '/lmtab/session';

/**
 * Fragment parameter that carries the engine secret in the links the relay prints: the person's
 * link (`/#pair=SECRET`) and a pairing link (`/?relay=connect#pair=SECRET`) for a tab elsewhere.
 */
export const pairingFragmentName = 'pair';

/** Query parameter of the app URL (`/?relay=connect`) that makes the page serve the relay at once. */
export const engineQueryFlag = { name: 'relay', value: 'connect' } as const;

/** The first frame a tab sends: how many requests it serves at once. */
export interface HelloFrame {
  type: 'hello';
  /** Requests the tab's engine decodes together (its parallel slots). */
  capacity: number;
  /** lmtab version of the tab's app, for the relay's log. */
  version?: string;
  /**
   * Request-body bytes the tab takes per request before granting more with `credit`; absent (an
   * older tab): the relay sends bodies without waiting.
   */
  bodyWindow?: number;
  /** The tab fetches a request's body from the relay when the request frame names a `bodyUrl`. */
  pullsBodies?: boolean;
  /**
   * The tab's page answers the relay's `ping` with a `pong`: the relay sets the tab aside while
   * its page answers nothing (frozen, suspended, stopped), and takes it back when it does again.
   */
  heartbeat?: boolean;
}

/** The relay asks whether the tab's page still runs; the page answers with a `pong` of this id. */
export interface PingFrame {
  type: 'ping';
  id: string;
}

/** The page of an engine tab answers the relay's `ping`. */
export interface PongFrame {
  type: 'pong';
  id: string;
}

/**
 * The relay set this tab's engine aside for `asideMs` (its page answered no ping for `silentMs`)
 * and serves requests with it again: sent when the page answers again.
 */
export interface RejoinedFrame {
  type: 'rejoined';
  asideMs: number;
  silentMs: number;
}

/**
 * The tab's engine now decodes `capacity` requests together (it loaded a model with that many
 * slots): the relay sends it that many at once from now on.
 */
export interface SlotsFrame {
  type: 'slots';
  capacity: number;
}

/** The tab's engine read `bytes` more of a request's body: the relay may send that many more. */
export interface CreditFrame {
  type: 'credit';
  id: string;
  bytes: number;
}

/** An HTTP request in transit to a tab; its body, if any, follows as binary pieces and `end`. */
export interface SocketRequestFrame {
  type: 'request';
  id: string;
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  url: string;
  headers: [string, string][];
  /** Whether the request has a body: binary pieces and an `end` frame follow, unless `bodyUrl`. */
  hasBody: boolean;
  /** Where the tab fetches the body instead (a path under {@link pulledBodyPath}). */
  bodyUrl?: string;
}

/** JSON frames the relay sends a tab. */
export type RelayToTabFrame =
  SocketRequestFrame | EndFrame | AbortFrame | PingFrame | RejoinedFrame;

/** JSON frames a tab sends the relay. */
export type TabToRelayFrame =
  HelloFrame | SlotsFrame | HeadFrame | EndFrame | ErrorFrame | CreditFrame | PongFrame;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Encodes one body piece of request `id` as a binary message. */
export function encodeBodyPiece(id: string, chunk: Uint8Array): Uint8Array {
  const idBytes = encoder.encode(id);
  if (idBytes.length === 0 || idBytes.length > 255) {
    throw new RangeError(`A frame id must be 1 to 255 bytes long, got ${idBytes.length}.`);
  }
  const message = new Uint8Array(1 + idBytes.length + chunk.byteLength);
  message[0] = idBytes.length;
  message.set(idBytes, 1);
  message.set(chunk, 1 + idBytes.length);
  return message;
}

/** Decodes a binary message into its request id and body bytes; undefined when malformed. */
export function decodeBodyPiece(
  message: Uint8Array,
): { id: string; chunk: Uint8Array } | undefined {
  const length = message[0];
  if (length === undefined || length === 0 || message.byteLength < 1 + length) return undefined;
  return {
    id: decoder.decode(message.subarray(1, 1 + length)),
    chunk: message.subarray(1 + length),
  };
}

/** A JSON object from a text message; undefined for anything else. */
function parseJsonObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function isPositiveInteger(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

function isHeaderList(value: unknown): value is [string, string][] {
  return (
    Array.isArray(value) &&
    value.every(
      (pair) =>
        Array.isArray(pair) &&
        pair.length === 2 &&
        typeof pair[0] === 'string' &&
        typeof pair[1] === 'string',
    )
  );
}

/**
 * Parses a JSON text message from a tab, checking its shape; undefined for anything else. The
 * relay treats what a tab sends as data only, so nothing passes without this check.
 */
export function parseTabFrame(text: string): TabToRelayFrame | undefined {
  const value = parseJsonObject(text);
  if (value === undefined) return undefined;
  const id = value.id;
  switch (value.type) {
    case 'hello':
      return Number.isInteger(value.capacity) &&
        (value.capacity as number) > 0 &&
        (value.bodyWindow === undefined || isPositiveInteger(value.bodyWindow))
        ? {
            type: 'hello',
            capacity: value.capacity as number,
            version: typeof value.version === 'string' ? value.version : undefined,
            ...(value.bodyWindow === undefined ? {} : { bodyWindow: value.bodyWindow as number }),
            ...(value.pullsBodies === true ? { pullsBodies: true } : {}),
            ...(value.heartbeat === true ? { heartbeat: true } : {}),
          }
        : undefined;
    case 'pong':
      return typeof id === 'string' ? { type: 'pong', id } : undefined;
    case 'slots':
      return isPositiveInteger(value.capacity)
        ? { type: 'slots', capacity: value.capacity as number }
        : undefined;
    case 'credit':
      return typeof id === 'string' && isPositiveInteger(value.bytes)
        ? { type: 'credit', id, bytes: value.bytes as number }
        : undefined;
    case 'head':
      return typeof id === 'string' &&
        Number.isInteger(value.status) &&
        (value.status as number) >= 200 &&
        (value.status as number) <= 599 &&
        isHeaderList(value.headers)
        ? { type: 'head', id, status: value.status as number, headers: value.headers }
        : undefined;
    case 'end':
      return typeof id === 'string' ? { type: 'end', id } : undefined;
    case 'error':
      return typeof id === 'string' &&
        typeof value.code === 'string' &&
        typeof value.message === 'string'
        ? { type: 'error', id, code: value.code, message: value.message }
        : undefined;
    default:
      return undefined;
  }
}

/** Parses a JSON text message from the relay, checking its shape; undefined for anything else. */
export function parseRelayFrame(text: string): RelayToTabFrame | undefined {
  const value = parseJsonObject(text);
  if (value === undefined) return undefined;
  if (value.type === 'rejoined') {
    return isPositiveInteger(value.asideMs) && isPositiveInteger(value.silentMs)
      ? { type: 'rejoined', asideMs: value.asideMs as number, silentMs: value.silentMs as number }
      : undefined;
  }
  if (typeof value.id !== 'string') return undefined;
  const id = value.id;
  switch (value.type) {
    case 'request':
      return typeof value.method === 'string' &&
        typeof value.url === 'string' &&
        value.url.startsWith('/') &&
        isHeaderList(value.headers) &&
        typeof value.hasBody === 'boolean' &&
        (value.bodyUrl === undefined ||
          (value.hasBody &&
            typeof value.bodyUrl === 'string' &&
            value.bodyUrl.startsWith(pulledBodyPath)))
        ? {
            type: 'request',
            id,
            method: value.method,
            url: value.url,
            headers: value.headers,
            hasBody: value.hasBody,
            ...(typeof value.bodyUrl === 'string' ? { bodyUrl: value.bodyUrl } : {}),
          }
        : undefined;
    case 'end':
    case 'abort':
    case 'ping':
      return { type: value.type, id };
    default:
      return undefined;
  }
}
