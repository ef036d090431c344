import { css } from 'lit';

/** The styles of the Discover tab (`lmtab-discover-view.ts`). */
export const discoverViewStyles = css`
  section > h3 {
    font-size: 1.05rem;
  }
  .section-head {
    display: flex;
    flex-wrap: wrap;
    align-items: flex-end;
    justify-content: space-between;
    gap: 0.6rem 1rem;
    margin-bottom: 0.8rem;
  }
  .section-head p {
    margin: 0.25rem 0 0;
    font-size: 0.85rem;
    color: var(--lm-muted);
  }
  .segmented {
    display: inline-flex;
    padding: 0.2rem;
    gap: 0.2rem;
    border-radius: var(--lm-radius-sm);
    background: var(--lm-surface-2);
    border: 1px solid var(--lm-border);
  }
  .segmented button {
    min-height: 2rem;
    border: none;
    background: transparent;
    color: var(--lm-muted);
  }
  .segmented button[aria-checked='true'] {
    background: var(--lm-surface);
    color: var(--lm-text);
    box-shadow: var(--lm-shadow-sm);
  }
  form {
    display: flex;
    gap: 0.5rem;
    margin-bottom: 0.9rem;
  }
  form input {
    flex: 1;
    min-width: 0;
    max-width: 32rem;
  }
  lmtab-hub-problem {
    margin-bottom: 0.9rem;
  }
  .quiet {
    color: var(--lm-muted);
    font-size: 0.88rem;
    margin: 0;
  }
  details.settings {
    padding: 0.2rem 1rem;
  }
  details.settings[open] {
    padding-bottom: 1rem;
  }
  details.settings summary {
    cursor: pointer;
    padding: 0.6rem 0;
    font-weight: 600;
    font-size: 0.92rem;
  }
  details.settings summary:focus-visible {
    outline: 2px solid var(--lm-focus);
    outline-offset: 2px;
    border-radius: 4px;
  }
  details.settings p {
    margin: 0 0 0.75rem;
    font-size: 0.82rem;
    color: var(--lm-muted);
  }
  @media (max-width: 759px) {
    .page {
      padding: 1rem 0.75rem 2rem;
    }
  }
`;
