import { css } from 'lit';

/** The styles of the chat composer (`lmtab-chat-composer.ts`). */
export const chatComposerStyles = css`
  :host {
    display: block;
  }
  .box {
    display: flex;
    flex-direction: column;
    gap: 0.4rem;
    padding: 0.5rem;
    border: 1px solid var(--lm-border);
    border-radius: var(--lm-radius);
    background: var(--lm-surface);
    box-shadow: var(--lm-shadow-sm);
  }
  .box:focus-within {
    border-color: var(--lm-accent);
  }
  textarea {
    border: none !important;
    background: transparent !important;
    resize: none;
    field-sizing: content;
    min-height: 2.6rem !important;
    max-height: 12rem;
    padding: 0.35rem 0.4rem !important;
    font-size: 0.95rem !important;
  }
  textarea:focus-visible {
    outline: none;
  }
  .bar {
    display: flex;
    align-items: center;
    gap: 0.35rem;
  }
  .spacer {
    flex: 1;
  }
  .attach {
    position: relative;
    display: inline-flex;
    align-items: center;
    justify-content: center;
    width: 2.25rem;
    height: 2.25rem;
    border-radius: var(--lm-radius-sm);
    cursor: pointer;
    color: var(--lm-muted);
  }
  .attach:hover {
    background: var(--lm-surface-2);
    color: var(--lm-text);
  }
  .attach:has(input:focus-visible) {
    outline: 2px solid var(--lm-focus);
    outline-offset: 2px;
  }
  .attach.off {
    opacity: 0.5;
    cursor: not-allowed;
  }
  .thumbs {
    display: flex;
    flex-wrap: wrap;
    gap: 0.4rem;
    padding: 0.2rem 0.2rem 0;
  }
  .thumb {
    position: relative;
  }
  .thumb img {
    width: 4rem;
    height: 4rem;
    object-fit: cover;
    border-radius: var(--lm-radius-sm);
    border: 1px solid var(--lm-border);
    display: block;
  }
  button.recording {
    color: var(--lm-danger);
  }
  .thumb.clip audio {
    height: 2.5rem;
    max-width: 16rem;
    display: block;
  }
  .thumb button {
    position: absolute;
    top: -0.45rem;
    right: -0.45rem;
    min-height: 1.5rem;
    min-width: 1.5rem;
    padding: 0;
    border-radius: 50%;
  }
  .thumb svg {
    width: 0.8rem;
    height: 0.8rem;
  }
  .url {
    display: flex;
    gap: 0.35rem;
    padding: 0 0.2rem;
  }
  .note {
    margin: 0;
    padding: 0 0.4rem;
    font-size: 0.8rem;
    line-height: 1.4;
  }
  .send {
    border-radius: 999px;
  }
  .keys {
    font-size: 0.72rem;
    color: var(--lm-muted);
    padding: 0.3rem 0.25rem 0;
    text-align: center;
  }
  @media (max-width: 560px) {
    .keys {
      display: none;
    }
  }
`;
