/** What the relay's `GET /health` answers (no engine needed); the Developer tab reads it. */
export interface RelayHealth {
  status: 'ok';
  version: string;
  /** Engine tabs connected now. */
  engines: number;
  /** The interface the relay listens on, e.g. `127.0.0.1` or `0.0.0.0`. */
  host: string;
  port: number;
  /** Addresses other devices reach the relay by (empty when it listens on loopback only). */
  lanAddresses: string[];
  /** Each engine's slots: how many it takes at once, how many are busy, how many it served. */
  slots: { capacity: number; active: number; served: number }[];
  /** The headless engine the relay launches, when it launches one: its browser page's state. */
  headless?: { state: HeadlessState; detail?: string };
  /** Whether `/v1` and `/api` need an API key: `everyone`, `remote` clients only, or `none`. */
  auth: 'everyone' | 'remote' | 'none';
  /** Requests waiting for a slot, and how many may wait. */
  queue: { waiting: number; limit: number };
}

/**
 * A headless engine's state: `idle` (not started: the first request starts it), `starting`,
 * `running`, `crashed` (its page crashed; a new one is being opened), `failed` (it could not start).
 */
export type HeadlessState = 'idle' | 'starting' | 'running' | 'crashed' | 'failed';

/** What the relay's session endpoint tells the page it serves (same-origin loopback pages only). */
export interface RelaySession {
  /** The engine secret to offer when joining as an engine tab. */
  engineSecret: string;
  /** An API key clients need (for the Developer tab to show), when the relay has one. */
  apiKey?: string;
}
