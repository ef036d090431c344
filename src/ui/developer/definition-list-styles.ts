import { css } from 'lit';

/** A two-column list of names and values (`dl`), as the Developer tab's engine and GPU panels show. */
export const definitionListStyles = css`
  dl {
    display: grid;
    grid-template-columns: max-content 1fr;
    gap: 0.55rem 1.25rem;
    margin: 0;
    font-size: 0.875rem;
  }
  dt {
    color: var(--lm-muted);
  }
  dd {
    margin: 0;
    font-weight: 500;
    overflow-wrap: anywhere;
  }
`;
