import { LitElement, html, nothing } from 'lit';
import { buildGgufChoices, featuredModels } from '../../hub/index.js';
import type { FeaturedCapability, FeaturedModel, GgufChoice, HubClient } from '../../hub/index.js';
import type { DownloadState, ModelRecord } from '../../store/index.js';
import { formatBytes, isHubPull } from '../../store/index.js';
import { controlStyles } from '../shared/control-styles.js';
import { choiceFiles, deviceFit, type DeviceFacts, type DeviceFit } from './device-fit.js';
import { formatParameterCount } from '../shared/format-parameter-count.js';
import { hubProblem, type HubProblem } from './hub-problem.js';
import { icons } from '../shared/icons.js';
import './lmtab-hub-problem.js';
import './lmtab-quick-chat.js';
import { featuredModelsStyles } from './featured-models-styles.js';

/** What the hub's listing says about a featured repository. */
interface Listing {
  /** The recommended level (Q4_K_M, else the nearest) with its files and projector. */
  choice?: GgufChoice;
  /** Why the listing failed. */
  problem?: HubProblem;
}

/** What `featured-download` asks for: a level of a repository, pinned to a commit. */
export interface FeaturedDownload {
  repo: string;
  revision?: string;
  choice: GgufChoice;
}

const capabilityText: Record<FeaturedCapability, string> = {
  text: 'Text',
  vision: 'Vision',
  audio: 'Audio',
  moe: 'MoE',
  thinking: 'Thinking',
  tools: 'Tools',
  rerank: 'Rerank',
};

const capabilityTitle: Record<FeaturedCapability, string> = {
  text: 'Reads and writes text',
  vision: 'Reads images (downloads a vision projector along)',
  audio: 'Hears speech: transcriptions and audio in chats (downloads an audio projector along)',
  moe: 'Mixture of experts: only part of the weights work on each token',
  thinking: 'Reasons step by step before the answer',
  tools: 'Calls tools (functions) you describe',
  rerank: 'Scores documents against a query for POST /v1/rerank; it does not chat',
};

/**
 * Discover's featured picks: a card per model of {@link featuredModels} with what it is, its size
 * (from the hub's listing when it answers, the data file's figure until then), whether it fits this
 * device, and one Download button; once stored, a Chat button opens a quick chat under the card (a
 * reranker's card says how to call it instead).
 * Fires `featured-download` (detail {@link FeaturedDownload}) and `download-action` (detail
 * `{id, action}`, as the downloads panel does).
 */
export class LmtabFeaturedModels extends LitElement {
  static override properties = {
    client: { attribute: false },
    active: { type: Boolean },
    downloads: { attribute: false },
    models: { attribute: false },
    facts: { attribute: false },
    listings: { state: true },
    problem: { state: true },
    preparing: { state: true },
    chatting: { state: true },
  };

  /** The hub to ask (a new one after the settings change). */
  declare client: HubClient | undefined;
  /** Whether Discover shows: the hub is asked the first time it does. */
  declare active: boolean;
  /** The page's downloads. */
  declare downloads: DownloadState[];
  /** The stored models. */
  declare models: ModelRecord[];
  declare facts: DeviceFacts;
  declare listings: Map<string, Listing>;
  /** A hub problem shared by the cards (offline, rate limit), with a Retry. */
  declare problem: HubProblem | undefined;
  /** The repository whose download is being prepared (model info and listing). */
  declare preparing: string;
  /** The repository whose quick chat is open. */
  declare chatting: string;
  private asked: HubClient | undefined;
  private retryAction: (() => Promise<void>) | undefined;
  private controller: AbortController | undefined;

  constructor() {
    super();
    this.active = false;
    this.downloads = [];
    this.models = [];
    this.facts = {};
    this.listings = new Map();
    this.preparing = '';
    this.chatting = '';
  }

  static override styles = [controlStyles, featuredModelsStyles];

  override willUpdate(changed: Map<string, unknown>) {
    if ((changed.has('active') || changed.has('client')) && this.active && this.client) {
      if (this.asked !== this.client) void this.listAll();
    }
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.controller?.abort();
  }

  /** Asks the hub for every featured repository's files, all at once. */
  private async listAll(only?: readonly string[]) {
    const client = this.client;
    if (client === undefined) return;
    this.asked = client;
    if (only === undefined) this.controller?.abort();
    const controller = only === undefined ? new AbortController() : this.controller;
    if (only === undefined) this.controller = controller;
    const signal = controller?.signal;
    const wanted = featuredModels.filter((m) => only === undefined || only.includes(m.repo));
    this.problem = undefined;
    const online = globalThis.navigator?.onLine ?? true;
    let shared: HubProblem | undefined;
    const list = async (model: FeaturedModel) => {
      let listing: Listing;
      try {
        const files = await client.listFiles(model.repo, { signal });
        listing = { choice: recommended(buildGgufChoices(files).choices) };
      } catch (error) {
        if (signal?.aborted) return;
        const problem = hubProblem(error, online);
        listing = { problem };
        if (problem.kind !== 'not-found') shared ??= problem;
      }
      const next = new Map(this.listings);
      next.set(model.repo, listing);
      this.listings = next;
    };
    // One request first: when the hub is offline or rate-limiting, the rest would only fail too.
    const [first, ...rest] = wanted;
    if (first !== undefined) await list(first);
    if (shared === undefined) await Promise.all(rest.map(list));
    if (signal?.aborted) return;
    if (shared !== undefined) {
      this.problem = shared;
      this.retryAction = () =>
        this.listAll(
          featuredModels
            .filter((m) => {
              const listing = this.listings.get(m.repo);
              return (
                listing === undefined || (listing.problem && listing.problem.kind !== 'not-found')
              );
            })
            .map((m) => m.repo),
        );
    }
  }

  private async download(model: FeaturedModel) {
    const client = this.client;
    if (client === undefined || this.preparing !== '') return;
    this.preparing = model.repo;
    this.problem = undefined;
    try {
      // Pinned to the commit the listing describes, so a resume days later gets the same bytes.
      const info = await client.modelInfo(model.repo);
      const files = await client.listFiles(info.id, { revision: info.sha });
      const choice = recommended(buildGgufChoices(files).choices);
      if (choice === undefined) throw new Error(`${info.id} has no GGUF model files.`);
      const next = new Map(this.listings);
      next.set(model.repo, { choice });
      this.listings = next;
      this.dispatchEvent(
        new CustomEvent<FeaturedDownload>('featured-download', {
          detail: { repo: info.id, revision: info.sha, choice },
          bubbles: true,
          composed: true,
        }),
      );
    } catch (error) {
      this.problem = hubProblem(error, globalThis.navigator?.onLine ?? true);
      this.retryAction = () => this.download(model);
    } finally {
      this.preparing = '';
    }
  }

  private async retry() {
    const action = this.retryAction;
    this.retryAction = undefined;
    this.problem = undefined;
    await action?.();
  }

  private act(id: string, action: 'pause' | 'resume' | 'cancel') {
    this.dispatchEvent(
      new CustomEvent('download-action', { detail: { id, action }, bubbles: true, composed: true }),
    );
  }

  private openChat(model: FeaturedModel) {
    this.chatting = model.repo;
    void this.updateComplete.then(() => {
      const chat = this.renderRoot.querySelector('lmtab-quick-chat');
      chat?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
      chat?.focus();
    });
  }

  private stored(model: FeaturedModel): ModelRecord | undefined {
    return (
      // A custom model made from the pull shares its source, but not its answers.
      this.models.find((r) => isHubPull(r, model.repo)) ??
      this.downloads.find((d) => d.status === 'done' && inRepo(d.id, model.repo))?.record
    );
  }

  private renderFit(model: FeaturedModel, fit: DeviceFit) {
    return html`<div class="fit ${fit.level}" data-testid="fit">
      <p id="fit-${cssId(model.repo)}">
        ${fit.level === 'yes' ? icons.check : icons.alert}<span>${fit.text}</span>
      </p>
      <ul class="paths" aria-label="Memory on each compute path">
        <li data-testid="fit-cpu" data-fits=${fit.cpu.fits}>${fit.cpu.text}</li>
        <li data-testid="fit-gpu" data-fits=${fit.gpu.fits}>${fit.gpu.text}</li>
      </ul>
    </div>`;
  }

  private renderActions(
    model: FeaturedModel,
    record: ModelRecord | undefined,
    size: number,
    fit: DeviceFit,
  ) {
    if (record !== undefined && model.capabilities.includes('rerank')) {
      return html`<p class="note" data-testid="rerank-use">
        Ranks documents through <code>POST /v1/rerank</code> as <code>${record.id}</code>.
      </p>`;
    }
    if (record !== undefined) {
      return html`<button
        class="primary"
        aria-label="Chat with ${model.name}"
        aria-expanded=${this.chatting === model.repo ? 'true' : 'false'}
        @click=${() => this.openChat(model)}
      >
        ${icons.chat} Chat
      </button>`;
    }
    const state = this.downloads.find((d) => d.status !== 'done' && inRepo(d.id, model.repo));
    if (state !== undefined) {
      const percent = state.total > 0 ? Math.floor((state.bytes / state.total) * 100) : 0;
      const active = state.status === 'downloading' || state.status === 'retrying';
      const words =
        state.status === 'paused' ? 'Paused' : state.status === 'failed' ? 'Failed' : 'Downloading';
      return html`<div class="progress" data-status=${state.status}>
          <span
            >${words} · ${formatBytes(state.bytes)} of ${formatBytes(state.total)} ·
            ${percent}%</span
          >
          <div
            class="bar"
            role="progressbar"
            aria-label="Download of ${model.name}"
            aria-valuemin="0"
            aria-valuemax="100"
            aria-valuenow=${percent}
          >
            <span style="width: ${percent}%"></span>
          </div>
          ${state.note ? html`<span>${state.note}</span>` : nothing}
          ${state.error ? html`<span class="error" role="alert">${state.error.message}</span>` : nothing}
        </div>
        ${
          active
            ? nothing
            : html`<button class="small" @click=${() => this.act(state.id, 'resume')}>
                Resume
              </button>`
        }
        <button
          class="small"
          aria-label="Cancel download of ${model.name}"
          @click=${() => this.act(state.id, 'cancel')}
        >
          Cancel
        </button>`;
    }
    const preparing = this.preparing === model.repo;
    // A model neither compute path can hold is of no use here; the reason is the fit's headline.
    return html`<button
      class="primary"
      aria-label="Download ${model.name}"
      aria-describedby=${fit.blocked === undefined ? nothing : `fit-${cssId(model.repo)}`}
      title=${fit.blocked ?? nothing}
      ?disabled=${this.preparing !== '' || this.client === undefined || fit.blocked !== undefined}
      @click=${() => this.download(model)}
    >
      ${icons.download} ${preparing ? 'Starting…' : `Download · ${formatBytes(size)}`}
    </button>`;
  }

  private renderCard(model: FeaturedModel) {
    const listing = this.listings.get(model.repo);
    const record = this.stored(model);
    const choice = listing?.choice;
    const size = choice?.downloadSize ?? model.sizeBytes;
    const fit = deviceFit(choice ? choiceFiles(choice) : [size], this.facts);
    const level = choice?.quantization ?? model.quantization;
    const params =
      model.activeParameters === undefined
        ? formatParameterCount(model.parameters)
        : `${formatParameterCount(model.parameters)} (${formatParameterCount(model.activeParameters)} active)`;
    return html`<article
      class="card ${record ? 'stored' : ''}"
      data-repo=${model.repo}
      aria-labelledby="name-${cssId(model.repo)}"
    >
      <div class="head">
        <span class="mark"
          >${
            model.capabilities.includes('vision')
              ? icons.eye
              : model.capabilities.includes('rerank')
                ? icons.list
                : icons.chat
          }</span
        >
        <div>
          <h3 id="name-${cssId(model.repo)}">${model.name}</h3>
          <span class="repo">${model.repo}</span>
        </div>
      </div>
      <div class="badges">
        ${model.capabilities.map(
          (c) =>
            html`<span class="badge ${c === 'text' ? '' : 'accent'}" title=${capabilityTitle[c]}
              >${capabilityText[c]}</span
            >`,
        )}
        ${record ? html`<span class="badge success">${icons.check} Downloaded</span>` : nothing}
      </div>
      <p class="summary">${model.summary}</p>
      <dl class="facts">
        <div>
          <dt>Parameters</dt>
          <dd data-testid="parameters">${params}</dd>
        </div>
        <div>
          <dt>${level}</dt>
          <dd data-testid="size">${choice ? '' : 'about '}${formatBytes(size)}</dd>
        </div>
        ${
          choice?.projector
            ? html`<div>
                <dt>with projector</dt>
                <dd>${formatBytes(choice.projector.size)}</dd>
              </div>`
            : nothing
        }
      </dl>
      ${record ? nothing : this.renderFit(model, fit)}
      ${
        listing?.problem?.kind === 'not-found'
          ? html`<p class="note">Not found on this hub.</p>`
          : nothing
      }
      <div class="actions">${this.renderActions(model, record, size, fit)}</div>
    </article>`;
  }

  override render() {
    return html`
      <lmtab-hub-problem .problem=${this.problem} @retry=${this.retry}></lmtab-hub-problem>
      <div class="grid">
        ${featuredModels.map((model) => {
          const record = this.chatting === model.repo ? this.stored(model) : undefined;
          return html`${this.renderCard(model)}${
            record
              ? html`<lmtab-quick-chat
                  class="chat"
                  .model=${record.id}
                  .label=${model.name}
                  @quick-chat-close=${() => (this.chatting = '')}
                ></lmtab-quick-chat>`
              : nothing
          }`;
        })}
      </div>
    `;
  }
}

/** The recommended choice: Q4_K_M, else the nearest level (see `buildGgufChoices`). */
function recommended(choices: readonly GgufChoice[]): GgufChoice | undefined {
  return choices.find((c) => c.recommended) ?? choices[0];
}

function inRepo(id: string, repo: string): boolean {
  return id.toLowerCase().startsWith(`hf.co/${repo.toLowerCase()}:`);
}

function cssId(repo: string): string {
  return repo.replace(/[^a-zA-Z0-9]+/g, '-');
}

customElements.define('lmtab-featured-models', LmtabFeaturedModels);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-featured-models': LmtabFeaturedModels;
  }
}
