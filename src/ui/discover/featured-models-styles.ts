import { css } from 'lit';

/** The styles of the featured model cards (`lmtab-featured-models.ts`). */
export const featuredModelsStyles = css`
  :host {
    display: block;
  }
  .grid {
    display: grid;
    grid-template-columns: repeat(auto-fill, minmax(min(100%, 15rem), 1fr));
    gap: 0.9rem;
  }
  lmtab-hub-problem {
    margin-bottom: 0.9rem;
  }
  .card {
    display: flex;
    flex-direction: column;
    gap: 0.55rem;
    padding: 0.95rem 1rem 1rem;
    min-width: 0;
  }
  .card.stored {
    border-color: color-mix(in srgb, var(--lm-success) 45%, var(--lm-border));
  }
  .head {
    display: flex;
    gap: 0.7rem;
    align-items: flex-start;
  }
  .mark {
    display: inline-flex;
    padding: 0.5rem;
    border-radius: 0.7rem;
    background: var(--lm-accent-soft);
    color: var(--lm-accent-on-soft);
  }
  h3 {
    font-size: 1rem;
  }
  .repo {
    display: block;
    margin-top: 0.1rem;
    font-size: 0.75rem;
    color: var(--lm-muted);
    overflow-wrap: anywhere;
  }
  .badges {
    display: flex;
    flex-wrap: wrap;
    gap: 0.3rem;
  }
  .summary {
    margin: 0;
    font-size: 0.85rem;
    line-height: 1.45;
    color: var(--lm-muted);
  }
  .facts {
    display: flex;
    flex-wrap: wrap;
    gap: 0.2rem 0.9rem;
    margin: 0;
    font-size: 0.8rem;
  }
  .facts div {
    display: flex;
    gap: 0.3rem;
  }
  .facts dt {
    color: var(--lm-muted);
  }
  .facts dd {
    margin: 0;
    font-variant-numeric: tabular-nums;
  }
  .fit {
    font-size: 0.8rem;
    line-height: 1.35;
  }
  .fit p {
    display: flex;
    gap: 0.35rem;
    align-items: flex-start;
    margin: 0;
  }
  .fit .paths {
    margin: 0.25rem 0 0;
    padding-left: 1.3rem;
    font-size: 0.75rem;
    color: var(--lm-muted);
    overflow-wrap: anywhere;
  }
  .fit svg {
    width: 0.95rem;
    height: 0.95rem;
    margin-top: 0.05rem;
  }
  .fit.yes p {
    color: var(--lm-success);
  }
  .fit.tight p,
  .fit.no p {
    color: var(--lm-danger);
  }
  .note {
    margin: 0;
    font-size: 0.8rem;
    color: var(--lm-muted);
  }
  .actions {
    margin-top: auto;
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
    align-items: center;
  }
  .actions button.primary {
    flex: 1;
  }
  .progress {
    flex: 1 1 100%;
    display: flex;
    flex-direction: column;
    gap: 0.3rem;
    font-size: 0.78rem;
    color: var(--lm-muted);
  }
  .bar {
    height: 0.45rem;
    border-radius: 999px;
    background: var(--lm-surface-2);
    border: 1px solid var(--lm-border);
    overflow: hidden;
  }
  .bar span {
    display: block;
    height: 100%;
    background: var(--lm-accent);
    min-width: 2px;
    transition: width 0.2s;
  }
  .progress .error {
    font-size: 0.8rem;
    overflow-wrap: anywhere;
  }
  .chat {
    grid-column: 1 / -1;
  }
`;
