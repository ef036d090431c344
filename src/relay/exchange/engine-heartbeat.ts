/**
 * Whether an engine tab's page still runs. The WebSocket's own pings are answered by the browser's
 * network process, so a tab whose page is frozen (Chrome's Energy Saver or Memory Saver, a
 * suspended laptop's tab, a renderer stopped by SIGSTOP) still looks connected; the relay then
 * routed requests to it, and they waited for the engine-silence timeout. This heartbeat asks the
 * page itself: a `ping` frame every `everyMs`, answered by a `pong` from the page's own thread.
 * A tab that has answered nothing for `silentMs` is set aside (no new request goes to it; waiting
 * ones go to another engine, or to the headless one the relay starts); its next answer takes it
 * back.
 */
export interface EngineHeartbeatOptions {
  /** Sends a ping of this id to the tab. */
  ping(id: string): void;
  /** The tab's page answered nothing for `silentMs`: set it aside. */
  onSilent(silentMs: number): void;
  /** The page answers again after `asideMs` set aside: take it back. */
  onAnswering(asideMs: number): void;
  everyMs: number;
  silentMs: number;
  /** Milliseconds now; default `Date.now`. */
  clock?: () => number;
}

/** One engine tab's heartbeat; {@link EngineHeartbeat.stop} it when the socket closes. */
export class EngineHeartbeat {
  private readonly clock: () => number;
  private readonly timer: ReturnType<typeof setInterval>;
  private lastAnswer: number;
  private asideSince: number | undefined;
  private sent = 0;

  constructor(private readonly options: EngineHeartbeatOptions) {
    this.clock = options.clock ?? Date.now;
    this.lastAnswer = this.clock();
    this.timer = setInterval(() => this.beat(), options.everyMs);
    this.timer.unref?.();
  }

  /** Whether the tab is set aside now. */
  get aside(): boolean {
    return this.asideSince !== undefined;
  }

  /** The page answered a ping (any of them: a late answer still says it runs). */
  pong(): void {
    const now = this.clock();
    this.lastAnswer = now;
    if (this.asideSince === undefined) return;
    const asideMs = now - this.asideSince;
    this.asideSince = undefined;
    this.options.onAnswering(asideMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private beat(): void {
    const now = this.clock();
    const silent = now - this.lastAnswer;
    if (this.asideSince === undefined && silent >= this.options.silentMs) {
      this.asideSince = now;
      this.options.onSilent(silent);
    }
    this.sent += 1;
    this.options.ping(String(this.sent));
  }
}
