import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ApiClient } from '../client/api-client.js';

/** Milliseconds between checks of which models the engine holds, while the tab shows. */
const residentPollMs = 15_000;

/**
 * Which models the engine holds now, asked of the page's API while the Chat tab shows and is in the
 * document (every 15 s, and at once when it starts showing), and on demand after a load, an
 * unload or an answer.
 */
export class ResidentModels implements ReactiveController {
  /** The models the engine held at the last check. */
  models: string[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private connected = false;
  private showing = false;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly api: () => ApiClient,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.connected = true;
    this.follow();
  }

  hostDisconnected(): void {
    this.connected = false;
    this.follow();
  }

  /** Whether the tab shows: the checks run only then. */
  set active(showing: boolean) {
    this.showing = showing;
    this.follow();
  }

  has(model: string): boolean {
    return this.models.includes(model);
  }

  async refresh(): Promise<void> {
    try {
      const status = await this.api().engineStatus();
      this.models = status.loaded.map((l) => l.model);
      this.host.requestUpdate();
    } catch {
      // The engine is restarting or another tab is taking over: the next check will tell.
    }
  }

  private follow(): void {
    const checking = this.connected && this.showing;
    if (checking && this.timer === undefined) {
      void this.refresh();
      this.timer = setInterval(() => void this.refresh(), residentPollMs);
    } else if (!checking && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
