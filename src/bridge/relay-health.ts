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
  /** Requests waiting for a slot, and how many may wait. */
  queue: { waiting: number; limit: number };
}
