import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ApiClient } from '../client/api-client.js';
import { failureText } from '../client/failure-text.js';
import type { ModelLoad } from './lmtab-model-picker.js';

/** Milliseconds between checks of which models the engine holds, while the tab shows. */
const residentPollMs = 15_000;

/**
 * Which models the engine holds now, asked of the page's API while the Chat tab shows and is in the
 * document (every 15 s, and at once when it starts showing), and on demand after a load, an
 * unload or an answer; and the load the person asked for from the model dropdown, with its phase.
 */
export class ResidentModels implements ReactiveController {
  /** The models the engine held at the last check. */
  models: string[] = [];
  /** The last load asked for from the dropdown: loading, loaded (in how long) or failed. */
  load: ModelLoad | undefined;
  private loadController: AbortController | undefined;
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

  /** Loads `model` (a load asked for before is given up), saying how it went in {@link load}. */
  async loadModel(model: string): Promise<void> {
    this.loadController?.abort();
    const controller = new AbortController();
    this.loadController = controller;
    const startedAt = performance.now();
    this.setLoad({ model, phase: 'loading', startedAt });
    try {
      await this.api().loadModel(model, { signal: controller.signal });
      const ms = performance.now() - startedAt;
      await this.refresh();
      if (this.loadController === controller) {
        this.setLoad({ model, phase: 'loaded', startedAt, ms });
      }
    } catch (error) {
      if (controller.signal.aborted) return;
      const message = `Loading ${model} failed: ${failureText(error)}`;
      this.setLoad({ model, phase: 'error', startedAt, error: message });
    }
  }

  /** Unloads `model`; answers why it could not be, or undefined. */
  async ejectModel(model: string): Promise<string | undefined> {
    let problem: string | undefined;
    try {
      await this.api().unloadModel(model);
      this.setLoad(undefined);
    } catch (error) {
      problem = `${model} could not be unloaded: ${failureText(error)}`;
    }
    await this.refresh();
    return problem;
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

  private setLoad(load: ModelLoad | undefined): void {
    this.load = load;
    this.host.requestUpdate();
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
