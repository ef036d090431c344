import { LitElement, html, nothing } from 'lit';
import { recordAudio, type Recording } from './voice/record-audio.js';
import { controlStyles } from '../shared/control-styles.js';
import { icons } from '../shared/icons.js';
import { toDataUri } from './to-data-uri.js';
import { chatComposerStyles } from './chat-composer-styles.js';

/** Largest image attached, in bytes (the API's body limit leaves room for a few). */
const maxImageBytes = 8 * 1024 * 1024;

/** Largest audio clip attached, in bytes: as base64 it stays well inside the API's 32 MiB. */
const maxAudioBytes = 16 * 1024 * 1024;

/** Audio files the engine reads (WAV, MP3, FLAC), by the MIME types browsers give them. */
const audioTypes = new Set([
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/vnd.wave',
  'audio/mpeg',
  'audio/mp3',
  'audio/flac',
  'audio/x-flac',
]);

const isAudio = (uri: string) => uri.startsWith('data:audio/');

/**
 * The Chat tab's message box: text, images (upload control, drag and drop via
 * {@link LmtabChatComposer.attachFiles}, paste, or a URL) shown as thumbnails, audio clips (WAV,
 * MP3, FLAC: upload control or drop) shown as players, and Send or Stop.
 * Fires `send` with `{text, images, audio}` and `stop`.
 */
export class LmtabChatComposer extends LitElement {
  static override properties = {
    disabled: { type: Boolean },
    busy: { type: Boolean },
    placeholder: { type: String },
    model: { type: String },
    imagesAllowed: { type: Boolean, attribute: 'images-allowed' },
    audioAllowed: { type: Boolean, attribute: 'audio-allowed' },
    blockedReason: { type: String, attribute: 'blocked-reason' },
    attachments: { state: true },
    urlOpen: { state: true },
    fetching: { state: true },
    recording: { state: true },
    talking: { type: Boolean },
    error: { state: true },
  };

  /** No model to talk to: nothing can be sent. */
  declare disabled: boolean;
  /** An answer is being generated: Send becomes Stop. */
  declare busy: boolean;
  declare placeholder: string;
  /** The chosen model, named in hints. */
  declare model: string;
  /** Whether the chosen model reads images (it has a projector). */
  declare imagesAllowed: boolean;
  /** Whether the chosen model may hear audio (it has a projector; the engine checks its kind). */
  declare audioAllowed: boolean;
  /** Why nothing can be sent now (an invalid setting), shown above Send; empty when it can. */
  declare blockedReason: string;
  declare attachments: string[];
  declare urlOpen: boolean;
  declare fetching: boolean;
  /** The microphone recording in progress (the mic button's), if any. */
  declare recording: Recording | undefined;
  /** A voice conversation is in progress (the talk button's): typing waits. */
  declare talking: boolean;
  declare error: string;

  constructor() {
    super();
    this.disabled = false;
    this.busy = false;
    this.placeholder = '';
    this.model = '';
    this.imagesAllowed = false;
    this.audioAllowed = false;
    this.blockedReason = '';
    this.attachments = [];
    this.urlOpen = false;
    this.fetching = false;
    this.recording = undefined;
    this.talking = false;
    this.error = '';
  }

  static override styles = [controlStyles, chatComposerStyles];

  /** Attaches image and audio files (from a drop on the chat, the upload control or a paste). */
  async attachFiles(files: Iterable<File>): Promise<void> {
    this.error = '';
    const added: string[] = [];
    for (const file of files) {
      if (audioTypes.has(file.type)) {
        if (file.size > maxAudioBytes) {
          this.error = `“${file.name}” is ${(file.size / 1e6).toFixed(1)} MB; audio clips up to ${maxAudioBytes / 1e6} MB can be attached.`;
        } else {
          added.push(await toDataUri(file));
        }
        continue;
      }
      if (!file.type.startsWith('image/')) {
        this.error = `“${file.name}” is neither an image nor an audio clip the model reads (${file.type === '' ? 'unknown type' : file.type}); attach PNG, JPEG, GIF or WebP images, or WAV, MP3 or FLAC audio.`;
        continue;
      }
      if (file.size > maxImageBytes) {
        this.error = `“${file.name}” is ${(file.size / 1e6).toFixed(1)} MB; images up to ${maxImageBytes / 1e6} MB can be attached.`;
        continue;
      }
      added.push(await toDataUri(file));
    }
    this.attachments = [...this.attachments, ...added];
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.recording?.cancel();
    this.recording = undefined;
  }

  /** Starts recording from the microphone, or stops and attaches the clip as a WAV. */
  private async toggleRecording() {
    this.error = '';
    const recording = this.recording;
    if (recording !== undefined) {
      this.recording = undefined;
      const wav = await recording.stop();
      await this.attachFiles([new File([wav as BlobPart], 'recording.wav', { type: 'audio/wav' })]);
      return;
    }
    try {
      this.recording = await recordAudio();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.error = `The microphone could not be opened: ${reason}. Allow this site to use it, or attach an audio file.`;
    }
  }

  /** Attaches the image at a URL (http(s) with CORS, or `data:`), read in the page. */
  private async attachUrl(url: string) {
    const trimmed = url.trim();
    if (!trimmed) return;
    this.error = '';
    this.fetching = true;
    try {
      let response: Response;
      try {
        response = await fetch(trimmed, { mode: 'cors', credentials: 'omit' });
      } catch {
        throw new Error(
          `Could not read the image at ${trimmed}: the address is unreachable or its server does not allow other sites to read it (CORS). Download it and attach the file instead.`,
        );
      }
      if (!response.ok) {
        throw new Error(`The server answered ${response.status} for ${trimmed}.`);
      }
      const blob = await response.blob();
      if (!blob.type.startsWith('image/')) {
        throw new Error(
          `${trimmed} is not an image (it is ${blob.type === '' ? 'of unknown type' : blob.type}).`,
        );
      }
      await this.attachFiles([new File([blob], 'image', { type: blob.type })]);
      if (!this.error) this.urlOpen = false;
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
    } finally {
      this.fetching = false;
    }
  }

  private get textarea(): HTMLTextAreaElement | null {
    return this.renderRoot.querySelector('textarea');
  }

  /** Puts the caret in the message box. */
  override focus() {
    this.textarea?.focus();
  }

  private get blocked(): string {
    if (this.blockedReason !== '') return this.blockedReason;
    if (this.attachments.some((uri) => !isAudio(uri)) && !this.imagesAllowed) {
      return `${this.model} has no vision projector, so it cannot read images. Choose a vision model, or remove the images.`;
    }
    if (this.attachments.some(isAudio) && !this.audioAllowed) {
      return `${this.model} has no audio projector, so it cannot hear audio. Choose an audio model, or remove the clips.`;
    }
    return '';
  }

  private submit(event?: Event) {
    event?.preventDefault();
    const box = this.textarea;
    if (!box || this.busy || this.disabled || this.blocked) return;
    const text = box.value.trim();
    if (text === '' && this.attachments.length === 0) return;
    this.dispatchEvent(
      new CustomEvent('send', {
        detail: {
          text,
          images: this.attachments.filter((uri) => !isAudio(uri)),
          audio: this.attachments.filter(isAudio),
        },
        bubbles: true,
        composed: true,
      }),
    );
    box.value = '';
    this.attachments = [];
    this.error = '';
  }

  /** The images and clips to send, each with its remove button. */
  private renderAttachments() {
    return this.attachments.length
      ? html`<div class="thumbs">
          ${this.attachments.map(
            (src, i) =>
              html`<span class="thumb ${isAudio(src) ? 'clip' : ''}">
                ${
                  isAudio(src)
                    ? html`<audio
                        controls
                        src=${src}
                        aria-label="Audio clip ${i + 1} to send"
                      ></audio>`
                    : html`<img src=${src} alt="Image ${i + 1} to send" />`
                }
                <button
                  type="button"
                  aria-label="Remove ${isAudio(src) ? 'audio clip' : 'image'} ${i + 1}"
                  @click=${() => (this.attachments = this.attachments.filter((_, j) => j !== i))}
                >
                  ${icons.close}
                </button>
              </span>`,
          )}
        </div>`
      : nothing;
  }

  /** The field that attaches an image by its URL, when open. */
  private renderUrlField() {
    return this.urlOpen
      ? html`<div class="url">
          <input
            type="url"
            name="image-url"
            aria-label="Image URL"
            placeholder="https://example.com/picture.png"
            @keydown=${(event: KeyboardEvent) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                void this.attachUrl((event.target as HTMLInputElement).value);
              }
              if (event.key === 'Escape') this.urlOpen = false;
            }}
          />
          <button
            type="button"
            ?disabled=${this.fetching}
            @click=${() =>
              this.attachUrl(
                this.renderRoot.querySelector<HTMLInputElement>('[name="image-url"]')?.value ?? '',
              )}
          >
            ${this.fetching ? 'Adding…' : 'Add'}
          </button>
        </div>`
      : nothing;
  }

  /** Attach, record, talk, and Send or Stop. */
  private renderBar() {
    const blocked = this.blocked;
    return html`
      <div class="bar">
        <label class="attach ${this.disabled ? 'off' : ''}" title="Attach images or audio">
          <input
            class="visually-hidden"
            type="file"
            accept="image/*,.wav,.mp3,.flac,${[...audioTypes].join(',')}"
            multiple
            aria-label="Attach images or audio"
            ?disabled=${this.disabled}
            @change=${async (event: Event) => {
              const input = event.target as HTMLInputElement;
              await this.attachFiles([...(input.files ?? [])]);
              input.value = '';
            }}
          />
          ${icons.image}
        </label>
        <button
          class="ghost icon"
          type="button"
          aria-label="Image from URL"
          title="Image from URL"
          aria-expanded=${this.urlOpen ? 'true' : 'false'}
          ?disabled=${this.disabled}
          @click=${async () => {
            this.urlOpen = !this.urlOpen;
            await this.updateComplete;
            this.renderRoot.querySelector<HTMLInputElement>('[name="image-url"]')?.focus();
          }}
        >
          ${icons.link}
        </button>
        ${
          this.audioAllowed
            ? html`<button
                  class="ghost icon ${this.recording ? 'recording' : ''}"
                  type="button"
                  aria-label=${this.recording ? 'Stop recording' : 'Record audio'}
                  title=${this.recording ? 'Stop recording and attach the clip' : 'Record audio'}
                  aria-pressed=${this.recording ? 'true' : 'false'}
                  ?disabled=${this.disabled}
                  @click=${() => this.toggleRecording()}
                >
                  ${icons.mic}
                </button>
                <button
                  class="ghost icon ${this.talking ? 'recording' : ''}"
                  type="button"
                  aria-label=${this.talking ? 'End the voice conversation' : 'Talk'}
                  title=${
                    this.talking
                      ? 'End the voice conversation'
                      : 'Talk: a spoken conversation, each pause a turn the model answers'
                  }
                  aria-pressed=${this.talking ? 'true' : 'false'}
                  ?disabled=${this.disabled || (this.busy && !this.talking)}
                  @click=${() =>
                    this.dispatchEvent(new CustomEvent('talk', { bubbles: true, composed: true }))}
                >
                  ${icons.voice}
                </button>`
            : nothing
        }
        <span class="spacer"></span>
        ${
          this.busy
            ? html`<button
                class="send"
                type="button"
                @click=${() =>
                  this.dispatchEvent(new CustomEvent('stop', { bubbles: true, composed: true }))}
              >
                ${icons.stop} Stop
              </button>`
            : html`<button
                class="send primary"
                type="submit"
                ?disabled=${this.disabled || blocked !== ''}
              >
                Send ${icons.send}
              </button>`
        }
      </div>
    `;
  }

  override render() {
    const blocked = this.blocked;
    return html`
      <form class="box" @submit=${this.submit}>
        ${this.renderAttachments()}
        <textarea
          name="message"
          aria-label="Message"
          rows="1"
          placeholder=${this.placeholder}
          ?disabled=${this.disabled}
          @keydown=${(event: KeyboardEvent) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              this.submit();
            }
          }}
          @paste=${(event: ClipboardEvent) => {
            const files = [...(event.clipboardData?.files ?? [])].filter((f) =>
              f.type.startsWith('image/'),
            );
            if (files.length) {
              event.preventDefault();
              void this.attachFiles(files);
            }
          }}
        ></textarea>
        ${this.renderUrlField()}
        ${this.error ? html`<p class="note error" role="alert">${this.error}</p>` : nothing}
        ${blocked ? html`<p class="note error" role="alert">${blocked}</p>` : nothing}
        ${this.renderBar()}
      </form>
      <div class="keys" aria-hidden="true">Enter to send · Shift+Enter for a new line</div>
    `;
  }
}

customElements.define('lmtab-chat-composer', LmtabChatComposer);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-chat-composer': LmtabChatComposer;
  }
}
