import { LitElement, css, html, nothing } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { controlStyles } from '../shared/control-styles.js';
import type { Conversation } from './conversation.js';
import { formatRelativeTime } from '../shared/format-relative-time.js';
import { icons } from '../shared/icons.js';
import '../shared/lmtab-confirm-dialog.js';

/**
 * The Chat tab's list of saved conversations. Fires `conversation-new`, `conversation-select`
 * (`{id}`), `conversation-rename` (`{id, title}`) and `conversation-delete` (`{id}`, after the
 * person confirmed).
 */
export class LmtabConversationList extends LitElement {
  static override properties = {
    conversations: { attribute: false },
    current: { type: String },
    editing: { state: true },
    deleting: { state: true },
  };

  /** The conversations, most recent first. */
  declare conversations: Conversation[];
  /** Id of the open conversation. */
  declare current: string;
  declare editing: string;
  declare deleting: Conversation | undefined;

  constructor() {
    super();
    this.conversations = [];
    this.current = '';
    this.editing = '';
  }

  /** Focusing the list focuses its first control (New chat). */
  static override shadowRootOptions = { ...LitElement.shadowRootOptions, delegatesFocus: true };

  static override styles = [
    controlStyles,
    css`
      :host {
        display: flex;
        flex-direction: column;
        min-height: 0;
      }
      .head {
        display: flex;
        align-items: center;
        justify-content: space-between;
        gap: 0.5rem;
        padding: 0.75rem 0.75rem 0.5rem;
      }
      h2 {
        font-size: 0.8rem;
        text-transform: uppercase;
        letter-spacing: 0.06em;
        color: var(--lm-muted);
      }
      ul {
        list-style: none;
        margin: 0;
        padding: 0 0.5rem 0.75rem;
        overflow-y: auto;
        flex: 1;
      }
      li {
        display: flex;
        align-items: center;
        gap: 0.1rem;
        border-radius: var(--lm-radius-sm);
        padding-right: 0.2rem;
      }
      li:hover,
      li:focus-within {
        background: var(--lm-surface-2);
      }
      li.current {
        background: var(--lm-accent-soft);
      }
      .open {
        flex: 1;
        min-width: 0;
        display: flex;
        flex-direction: column;
        align-items: flex-start;
        gap: 0.1rem;
        padding: 0.45rem 0.6rem;
        border: none;
        background: transparent;
        text-align: left;
        font-weight: 500;
      }
      .open:hover:not(:disabled) {
        background: transparent;
      }
      .title {
        width: 100%;
        overflow: hidden;
        text-overflow: ellipsis;
      }
      .when {
        font-size: 0.72rem;
        font-weight: 400;
        color: var(--lm-muted);
      }
      li .actions {
        display: flex;
        opacity: 0;
      }
      li:hover .actions,
      li:focus-within .actions,
      li.current .actions {
        opacity: 1;
      }
      @media (hover: none) {
        li .actions {
          opacity: 1;
        }
      }
      input {
        margin: 0.2rem;
      }
      .empty {
        padding: 0.5rem 1rem;
        font-size: 0.85rem;
      }
    `,
  ];

  private emit(type: string, detail: object = {}) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  override updated(changed: Map<string, unknown>) {
    if (changed.has('editing') && this.editing) {
      const input = this.renderRoot.querySelector<HTMLInputElement>('input[name="title"]');
      input?.focus();
      input?.select();
    }
  }

  private commitRename(input: HTMLInputElement, conversation: Conversation) {
    if (this.editing !== conversation.id) return;
    const title = input.value.trim();
    this.editing = '';
    if (title !== '' && title !== conversation.title) {
      this.emit('conversation-rename', { id: conversation.id, title });
    }
    this.updateComplete.then(() =>
      this.renderRoot
        .querySelector<HTMLButtonElement>(`[data-id="${CSS.escape(conversation.id)}"] .open`)
        ?.focus(),
    );
  }

  private renderItem(conversation: Conversation) {
    const current = conversation.id === this.current;
    if (this.editing === conversation.id) {
      return html`<li class=${current ? 'current' : ''} data-id=${conversation.id}>
        <input
          name="title"
          aria-label="Conversation name"
          .value=${conversation.title}
          @keydown=${(event: KeyboardEvent) => {
            const input = event.target as HTMLInputElement;
            if (event.key === 'Enter') this.commitRename(input, conversation);
            if (event.key === 'Escape') {
              event.stopPropagation();
              input.value = conversation.title;
              this.commitRename(input, conversation);
            }
          }}
          @blur=${(event: FocusEvent) =>
            this.commitRename(event.target as HTMLInputElement, conversation)}
        />
      </li>`;
    }
    return html`<li class=${current ? 'current' : ''} data-id=${conversation.id}>
      <button
        class="open"
        type="button"
        aria-current=${current ? 'true' : nothing}
        @click=${() => this.emit('conversation-select', { id: conversation.id })}
      >
        <span class="title">${conversation.title}</span>
        <span class="when">${formatRelativeTime(conversation.updatedAt, Date.now())}</span>
      </button>
      <span class="actions">
        <button
          class="ghost small icon"
          type="button"
          aria-label="Rename ${conversation.title}"
          title="Rename"
          @click=${() => (this.editing = conversation.id)}
        >
          ${icons.pencil}
        </button>
        <button
          class="ghost small icon"
          type="button"
          aria-label="Delete ${conversation.title}"
          title="Delete"
          @click=${() => (this.deleting = conversation)}
        >
          ${icons.trash}
        </button>
      </span>
    </li>`;
  }

  override render() {
    const deleting = this.deleting;
    return html`
      <div class="head">
        <h2 id="chats-heading">Chats</h2>
        <button class="small" type="button" @click=${() => this.emit('conversation-new')}>
          ${icons.plus} New chat
        </button>
      </div>
      <ul aria-labelledby="chats-heading">
        ${repeat(
          this.conversations,
          (c) => c.id,
          (c) => this.renderItem(c),
        )}
      </ul>
      ${this.conversations.length === 0 ? html`<p class="empty muted">No chats yet.</p>` : null}
      <lmtab-confirm-dialog
        heading=${`Delete “${deleting?.title ?? ''}”?`}
        confirm-label="Delete chat"
        danger
        ?open=${deleting !== undefined}
        message="Its ${deleting?.turns.length ?? 0} messages are removed from this browser. This cannot be undone."
        @cancel=${() => (this.deleting = undefined)}
        @confirm=${() => {
          if (deleting) this.emit('conversation-delete', { id: deleting.id });
          this.deleting = undefined;
        }}
      >
      </lmtab-confirm-dialog>
    `;
  }
}

customElements.define('lmtab-conversation-list', LmtabConversationList);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-conversation-list': LmtabConversationList;
  }
}
