// The relay's defaults, written once: `createRelay`, `lmtab serve` and its help read them here.

/** The interface the relay listens on: loopback only (`--host 0.0.0.0` opens it to the LAN). */
export const defaultRelayHost = '127.0.0.1';

/** The relay's port (11434 serves Ollama clients). */
export const defaultRelayPort = 1234;

/** Requests that may wait for a free engine slot before a 503 `engine_busy`. */
export const defaultQueueLimit = 16;

/**
 * Milliseconds an engine may send nothing for a request before it ends with `engine_timeout`:
 * 10 minutes, as a long answer with `stream: false` sends nothing until it is done.
 */
export const defaultEngineTimeoutMs = 10 * 60_000;

/** Milliseconds requests give an engine the relay started to connect. */
export const defaultEngineWaitMs = 120_000;

/** Milliseconds between pings to engine tabs; one unanswered ping drops the tab. */
export const defaultHeartbeatMs = 15_000;

/**
 * Milliseconds between the relay's pings to each engine tab's page (answered by the page itself,
 * unlike the WebSocket's pings above), and how long a page may answer none before its tab is set
 * aside until it answers again (a frozen or suspended tab).
 */
export const engineHeartbeat = { everyMs: 1000, silentMs: 5000 } as const;

/** Milliseconds a tab gets to confirm an abort before its slot is freed anyway. */
export const defaultAbortGraceMs = 5000;

/**
 * A refused upload is read on and thrown away (so that the client reads the refusal instead of a
 * reset, as nginx's lingering close does) up to this many bytes...
 */
export const defaultDrainBytes = 64 * 1024 * 1024;

/** ...or for this many milliseconds, whichever comes first. */
export const defaultDrainTimeoutMs = 10_000;

/** After an answer to a head Node's parser refused: milliseconds the socket is read on, at most... */
export const defaultLingerMs = 5000;

/** ...and bytes. */
export const defaultLingerBytes = 1024 * 1024;

/** Milliseconds a stopping relay lets answers in progress finish before ending the rest. */
export const defaultDrainMs = 5000;
