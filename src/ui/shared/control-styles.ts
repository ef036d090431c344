import { css } from 'lit';

/**
 * Buttons, fields, badges and helpers shared by lmtab's elements (each adds it to its own styles).
 * Colours come from the theme properties that `<lmtab-app>` sets for light and dark schemes.
 */
export const controlStyles = css`
  :host {
    color: var(--lm-text);
    font-family: var(--lm-font);
  }
  *,
  *::before,
  *::after {
    box-sizing: border-box;
  }
  button,
  input,
  select,
  textarea {
    font: inherit;
    color: inherit;
  }
  button {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    gap: 0.4rem;
    min-height: 2.25rem;
    padding: 0.4rem 0.85rem;
    border: 1px solid var(--lm-border);
    border-radius: var(--lm-radius-sm);
    background: var(--lm-surface);
    cursor: pointer;
    font-size: 0.875rem;
    font-weight: 500;
    line-height: 1.2;
    white-space: nowrap;
    transition:
      background-color 0.12s,
      border-color 0.12s;
  }
  button:hover:not(:disabled) {
    background: var(--lm-surface-2);
  }
  button:disabled {
    opacity: 0.5;
    cursor: not-allowed;
  }
  button.primary {
    background: var(--lm-accent);
    border-color: var(--lm-accent);
    color: var(--lm-accent-text);
  }
  button.primary:hover:not(:disabled) {
    background: var(--lm-accent-strong);
  }
  button.danger {
    color: var(--lm-danger);
  }
  button.danger.solid {
    background: var(--lm-danger);
    border-color: var(--lm-danger);
    color: #fff;
  }
  button.ghost {
    background: transparent;
    border-color: transparent;
  }
  button.ghost:hover:not(:disabled) {
    background: var(--lm-surface-2);
  }
  button.icon {
    padding: 0.35rem;
    min-width: 2.25rem;
  }
  button.small {
    min-height: 1.9rem;
    padding: 0.2rem 0.55rem;
    font-size: 0.8rem;
  }
  button.small.icon {
    min-width: 1.9rem;
    padding: 0.2rem;
  }
  svg {
    width: 1.1rem;
    height: 1.1rem;
    flex: none;
  }
  input:not([type='file']):not([type='range']):not([type='checkbox']),
  select,
  textarea {
    width: 100%;
    min-height: 2.25rem;
    padding: 0.4rem 0.6rem;
    border: 1px solid var(--lm-border);
    border-radius: var(--lm-radius-sm);
    background: var(--lm-field);
    font-size: 0.9rem;
  }
  input[type='range'] {
    accent-color: var(--lm-accent);
    width: 100%;
    margin: 0;
  }
  textarea {
    resize: vertical;
    line-height: 1.45;
  }
  :is(button, input, select, textarea, a, [tabindex]):focus-visible {
    outline: 2px solid var(--lm-focus);
    outline-offset: 2px;
  }
  input:focus-visible,
  select:focus-visible,
  textarea:focus-visible {
    outline-offset: 0;
    border-color: var(--lm-accent);
  }
  a {
    color: var(--lm-link);
  }
  h2,
  h3 {
    margin: 0;
    line-height: 1.25;
  }
  .muted {
    color: var(--lm-muted);
  }
  .badge {
    display: inline-flex;
    align-items: center;
    gap: 0.25rem;
    padding: 0.1rem 0.45rem;
    border-radius: 999px;
    background: var(--lm-surface-2);
    border: 1px solid var(--lm-border);
    font-size: 0.72rem;
    font-weight: 600;
    letter-spacing: 0.01em;
    white-space: nowrap;
  }
  .badge.accent {
    background: var(--lm-accent-soft);
    border-color: transparent;
    color: var(--lm-accent-on-soft);
  }
  .badge.success {
    background: var(--lm-success-soft);
    border-color: transparent;
    color: var(--lm-success);
  }
  .card {
    background: var(--lm-surface);
    border: 1px solid var(--lm-border);
    border-radius: var(--lm-radius);
  }
  .error {
    color: var(--lm-danger);
  }
  .visually-hidden {
    position: absolute !important;
    width: 1px;
    height: 1px;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
  @media (prefers-reduced-motion: reduce) {
    * {
      transition: none !important;
      animation-duration: 0.01ms !important;
    }
  }
`;

/** The scrolling, centred page of a full-tab view (Developer, My Models) and its header. */
export const pageStyles = css`
  :host {
    display: block;
    height: 100%;
    overflow-y: auto;
  }
  .page {
    max-width: 72rem;
    margin: 0 auto;
    padding: 1.5rem 1.5rem 3rem;
    display: flex;
    flex-direction: column;
    gap: 1.25rem;
  }
  header h2 {
    font-size: 1.35rem;
  }
  header p {
    margin: 0.35rem 0 0;
    color: var(--lm-muted);
    font-size: 0.9rem;
  }
`;
