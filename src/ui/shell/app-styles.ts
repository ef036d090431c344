import { css } from 'lit';

/** The styles of the app shell (`lmtab-app.ts`). */
export const appStyles = css`
  :host {
    color-scheme: light;
    --lm-font: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
    --lm-mono: ui-monospace, 'SF Mono', 'Cascadia Code', Menlo, Consolas, monospace;
    --lm-radius: 12px;
    --lm-radius-sm: 8px;
    --lm-bg: #f5f6f8;
    --lm-rail: #eceef2;
    --lm-surface: #ffffff;
    --lm-surface-2: #f0f2f5;
    --lm-field: #ffffff;
    --lm-border: #dde1e7;
    --lm-border-strong: #b9c0ca;
    --lm-text: #1a1d23;
    --lm-muted: #5b6470;
    --lm-accent: #4f46e5;
    --lm-accent-strong: #4338ca;
    --lm-accent-text: #ffffff;
    --lm-accent-soft: rgb(79 70 229 / 0.1);
    --lm-accent-on-soft: #4338ca;
    --lm-focus: #4f46e5;
    --lm-link: #4338ca;
    --lm-user-bubble: #e9e8fc;
    --lm-code-bg: #f3f4f7;
    --lm-success: #1f7a3a;
    --lm-success-soft: rgb(31 122 58 / 0.14);
    --lm-danger: #b42318;
    --lm-danger-soft: rgb(180 35 24 / 0.09);
    --lm-shadow: 0 12px 32px rgb(16 24 40 / 0.16);
    --lm-shadow-sm: 0 1px 3px rgb(16 24 40 / 0.08);

    display: grid;
    grid-template-columns: 5.25rem minmax(0, 1fr);
    grid-template-rows: auto minmax(0, 1fr);
    grid-template-areas: 'top top' 'rail main';
    height: 100%;
    background: var(--lm-bg);
    color: var(--lm-text);
    font-family: var(--lm-font);
    -webkit-font-smoothing: antialiased;
  }
  @media (prefers-color-scheme: dark) {
    :host {
      color-scheme: dark;
      --lm-bg: #111318;
      --lm-rail: #0c0e12;
      --lm-surface: #181b21;
      --lm-surface-2: #22262e;
      --lm-field: #111318;
      --lm-border: #2c313a;
      --lm-border-strong: #4a515c;
      --lm-text: #e7e9ee;
      --lm-muted: #9aa3b0;
      --lm-accent: #8b83ff;
      --lm-accent-strong: #a39dff;
      --lm-accent-text: #12102b;
      --lm-accent-soft: rgb(139 131 255 / 0.16);
      --lm-accent-on-soft: #bcb7ff;
      --lm-focus: #a39dff;
      --lm-link: #aaa4ff;
      --lm-user-bubble: #2a2853;
      --lm-code-bg: #0d0f13;
      --lm-success: #4ade80;
      --lm-success-soft: rgb(74 222 128 / 0.16);
      --lm-danger: #ff8a80;
      --lm-danger-soft: rgb(255 138 128 / 0.12);
      --lm-shadow: 0 12px 32px rgb(0 0 0 / 0.5);
      --lm-shadow-sm: 0 1px 3px rgb(0 0 0 / 0.4);
    }
  }
  .top {
    grid-area: top;
    display: flex;
    align-items: center;
    justify-content: space-between;
    gap: 1rem;
    height: 3rem;
    padding: 0 1rem;
    background: var(--lm-rail);
    border-bottom: 1px solid var(--lm-border);
    min-width: 0;
  }
  .brand {
    display: flex;
    align-items: center;
    gap: 0.5rem;
    font-weight: 700;
    font-size: 1.05rem;
    letter-spacing: -0.01em;
    margin: 0;
  }
  .logo {
    display: inline-grid;
    place-items: center;
    width: 1.75rem;
    height: 1.75rem;
    border-radius: 0.5rem;
    background: var(--lm-accent);
    color: var(--lm-accent-text);
  }
  .logo svg {
    width: 1rem;
    height: 1rem;
  }
  .engine {
    display: flex;
    align-items: center;
    gap: 0.45rem;
    min-width: 0;
    font-size: 0.8rem;
    color: var(--lm-muted);
  }
  .engine .text {
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
  .downloading {
    display: inline-flex;
    align-items: center;
    gap: 0.3rem;
    margin-left: auto;
    margin-right: -0.25rem;
    flex: none;
    padding: 0.2rem 0.6rem;
    border-radius: 999px;
    background: var(--lm-accent-soft);
    color: var(--lm-accent-on-soft);
    font-size: 0.78rem;
    font-weight: 600;
    text-decoration: none;
    white-space: nowrap;
    font-variant-numeric: tabular-nums;
  }
  .downloading svg {
    width: 0.9rem;
    height: 0.9rem;
  }
  .dot {
    width: 0.5rem;
    height: 0.5rem;
    border-radius: 50%;
    background: var(--lm-border-strong);
    flex: none;
  }
  .dot.on {
    background: var(--lm-success);
  }
  .dot.off {
    background: var(--lm-danger);
  }
  nav {
    grid-area: rail;
    background: var(--lm-rail);
    border-right: 1px solid var(--lm-border);
  }
  [role='tablist'] {
    display: flex;
    flex-direction: column;
    gap: 0.3rem;
    padding: 0.6rem 0.45rem;
  }
  [role='tab'] {
    flex-direction: column;
    gap: 0.3rem;
    height: 4.1rem;
    padding: 0.3rem;
    border: none;
    border-radius: var(--lm-radius-sm);
    background: transparent;
    color: var(--lm-muted);
    font-size: 0.72rem;
    font-weight: 600;
    white-space: normal;
    text-align: center;
    line-height: 1.1;
  }
  [role='tab'] svg {
    width: 1.35rem;
    height: 1.35rem;
  }
  [role='tab']:hover {
    color: var(--lm-text);
  }
  [role='tab'][aria-selected='true'] {
    background: var(--lm-accent-soft);
    color: var(--lm-accent-on-soft);
  }
  main {
    grid-area: main;
    min-width: 0;
    min-height: 0;
    position: relative;
  }
  [role='tabpanel'] {
    height: 100%;
    min-height: 0;
  }
  [role='tabpanel'][hidden] {
    display: none;
  }
  [role='tabpanel'] > * {
    height: 100%;
  }
  .banner {
    position: absolute;
    top: 0.75rem;
    left: 50%;
    transform: translateX(-50%);
    z-index: 30;
    width: min(40rem, calc(100% - 1.5rem));
    margin: 0;
    padding: 0.6rem 0.9rem;
    border-radius: var(--lm-radius-sm);
    background: var(--lm-surface);
    border: 1px solid var(--lm-danger);
    box-shadow: var(--lm-shadow);
    font-size: 0.875rem;
  }
  .starting {
    display: grid;
    place-items: center;
    height: 100%;
    color: var(--lm-muted);
  }
  .fatal {
    grid-column: 1 / -1;
    grid-row: 1 / -1;
    margin: auto;
    max-width: 32rem;
    padding: 2rem;
    text-align: center;
    line-height: 1.5;
  }
  @media (max-width: 759px) {
    :host {
      grid-template-columns: minmax(0, 1fr);
      grid-template-rows: auto minmax(0, 1fr) auto;
      grid-template-areas: 'top' 'main' 'rail';
    }
    .top {
      height: 2.75rem;
      padding: 0 0.75rem;
    }
    nav {
      border-right: none;
      border-top: 1px solid var(--lm-border);
      padding-bottom: env(safe-area-inset-bottom);
    }
    [role='tablist'] {
      flex-direction: row;
      gap: 0.2rem;
      padding: 0.3rem;
    }
    [role='tab'] {
      flex: 1;
      height: 3.3rem;
    }
  }
`;
