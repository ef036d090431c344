import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import { controlStyles } from './control-styles.js';
import { icons } from './icons.js';
import { parseMarkdown, type MarkdownBlock, type MarkdownInline } from './parse-markdown.js';

/**
 * Renders a chat answer's markdown as Lit templates: every piece of text goes into a text binding,
 * so nothing the model writes can become markup (safe by construction, no innerHTML).
 */
export class LmtabMarkdown extends LitElement {
  static override properties = {
    text: { type: String },
    copied: { state: true },
  };

  /** The markdown source. */
  declare text: string;
  declare copied: number;

  constructor() {
    super();
    this.text = '';
    this.copied = -1;
  }

  static override styles = [
    controlStyles,
    css`
      :host {
        display: block;
        line-height: 1.6;
        overflow-wrap: anywhere;
      }
      :host > :first-child,
      li > :first-child {
        margin-top: 0;
      }
      :host > :last-child,
      li > :last-child {
        margin-bottom: 0;
      }
      p,
      ul,
      ol,
      blockquote,
      table,
      .code {
        margin: 0.6em 0;
      }
      h3,
      h4,
      h5,
      h6 {
        margin: 1em 0 0.4em;
        line-height: 1.3;
      }
      h3 {
        font-size: 1.3em;
      }
      h4 {
        font-size: 1.15em;
      }
      h5 {
        font-size: 1.05em;
      }
      h6 {
        font-size: 1em;
      }
      ul,
      ol {
        padding-left: 1.5em;
      }
      li + li {
        margin-top: 0.2em;
      }
      li > p {
        margin: 0.3em 0;
      }
      blockquote {
        padding-left: 0.9em;
        border-left: 3px solid var(--lm-border);
        color: var(--lm-muted);
      }
      hr {
        border: none;
        border-top: 1px solid var(--lm-border);
        margin: 1em 0;
      }
      code {
        font-family: var(--lm-mono);
        font-size: 0.88em;
      }
      :not(pre) > code {
        padding: 0.1em 0.35em;
        border-radius: 4px;
        background: var(--lm-code-bg);
        border: 1px solid var(--lm-border);
      }
      .code {
        border: 1px solid var(--lm-border);
        border-radius: var(--lm-radius-sm);
        background: var(--lm-code-bg);
        overflow: hidden;
      }
      .code-head {
        display: flex;
        align-items: center;
        justify-content: space-between;
        padding: 0.15rem 0.25rem 0.15rem 0.75rem;
        border-bottom: 1px solid var(--lm-border);
        font-size: 0.75rem;
        color: var(--lm-muted);
        font-family: var(--lm-mono);
      }
      pre {
        margin: 0;
        padding: 0.75rem;
        overflow-x: auto;
        line-height: 1.45;
      }
      table {
        border-collapse: collapse;
        display: block;
        overflow-x: auto;
        max-width: 100%;
      }
      th,
      td {
        border: 1px solid var(--lm-border);
        padding: 0.3em 0.6em;
      }
      th {
        background: var(--lm-surface-2);
      }
    `,
  ];

  private async copy(code: string, index: number) {
    try {
      await navigator.clipboard.writeText(code);
      this.copied = index;
      setTimeout(() => {
        if (this.copied === index) this.copied = -1;
      }, 1500);
    } catch {
      // Clipboard refused (no permission, insecure context): select the code for a manual copy.
      const pre = this.renderRoot.querySelectorAll('pre')[index];
      if (pre) getSelection()?.selectAllChildren(pre);
    }
  }

  private inline(nodes: MarkdownInline[]): TemplateResult[] {
    return nodes.map((node) => {
      switch (node.type) {
        case 'text':
          return html`${node.text}`;
        case 'strong':
          return html`<strong>${this.inline(node.children)}</strong>`;
        case 'em':
          return html`<em>${this.inline(node.children)}</em>`;
        case 'del':
          return html`<del>${this.inline(node.children)}</del>`;
        case 'code':
          return html`<code>${node.text}</code>`;
        case 'link':
          return html`<a href=${node.href} target="_blank" rel="noopener noreferrer"
            >${this.inline(node.children)}</a
          >`;
        case 'break':
          return html`<br />`;
      }
    });
  }

  private blocks(blocks: MarkdownBlock[], counter: { code: number }, tight = false): unknown[] {
    return blocks.map((block) => {
      switch (block.type) {
        case 'paragraph':
          // Items of a tight list hold their text without a paragraph's margins.
          return tight && blocks.length === 1
            ? this.inline(block.children)
            : html`<p>${this.inline(block.children)}</p>`;
        case 'heading':
          return this.heading(block.level, this.inline(block.children));
        case 'code': {
          const index = counter.code++;
          const copied = this.copied === index;
          return html`<div class="code">
            <div class="code-head">
              <span>${block.language === '' ? 'text' : block.language}</span>
              <button
                class="ghost small"
                type="button"
                aria-label=${copied ? 'Copied' : 'Copy code'}
                @click=${() => this.copy(block.text, index)}
              >
                ${copied ? icons.check : icons.copy} ${copied ? 'Copied' : 'Copy'}
              </button>
            </div>
            <pre><code>${block.text}</code></pre>
          </div>`;
        }
        case 'list': {
          const items = block.items.map(
            (item) => html`<li>${this.blocks(item, counter, true)}</li>`,
          );
          return block.ordered
            ? html`<ol start=${block.start === 1 ? nothing : block.start}>
                ${items}
              </ol>`
            : html`<ul>
                ${items}
              </ul>`;
        }
        case 'blockquote':
          return html`<blockquote>${this.blocks(block.children, counter)}</blockquote>`;
        case 'rule':
          return html`<hr />`;
        case 'table':
          return html`<table>
            <thead>
              <tr>
                ${block.header.map(
                  (cell, column) =>
                    html`<th style=${alignStyle(block.align[column])}>${this.inline(cell)}</th>`,
                )}
              </tr>
            </thead>
            <tbody>
              ${block.rows.map(
                (row) =>
                  html`<tr>
                    ${row.map(
                      (cell, column) =>
                        html`<td style=${alignStyle(block.align[column])}>
                          ${this.inline(cell)}
                        </td>`,
                    )}
                  </tr>`,
              )}
            </tbody>
          </table>`;
      }
    });
  }

  private heading(level: number, content: TemplateResult[]): TemplateResult {
    // Answers sit under the page's own headings: their levels start at h3.
    if (level <= 1) return html`<h3>${content}</h3>`;
    if (level === 2) return html`<h4>${content}</h4>`;
    if (level === 3) return html`<h5>${content}</h5>`;
    return html`<h6>${content}</h6>`;
  }

  override render() {
    return this.blocks(parseMarkdown(this.text), { code: 0 });
  }
}

function alignStyle(align: string | null | undefined) {
  return align ? `text-align: ${align}` : nothing;
}

customElements.define('lmtab-markdown', LmtabMarkdown);

declare global {
  interface HTMLElementTagNameMap {
    'lmtab-markdown': LmtabMarkdown;
  }
}
