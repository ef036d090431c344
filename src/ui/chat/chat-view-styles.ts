import { css } from 'lit';

/**
 * The Chat tab's layout: chats list, conversation and settings sidebar side by side on wide
 * screens, the sidebar as an overlay below 1100px and the list as a drawer below 760px.
 */
export const chatViewStyles = css`
  :host {
    display: grid;
    grid-template-columns: 16rem minmax(0, 1fr) auto;
    height: 100%;
    min-height: 0;
    position: relative;
    overflow: hidden;
  }
  .chats {
    display: flex;
    flex-direction: column;
    min-height: 0;
    border-right: 1px solid var(--lm-border);
    background: var(--lm-surface);
  }
  .chats lmtab-conversation-list {
    flex: 1;
  }
  .settings {
    width: 20rem;
    display: flex;
    flex-direction: column;
    min-height: 0;
    border-left: 1px solid var(--lm-border);
    background: var(--lm-surface);
  }
  .settings[hidden] {
    display: none;
  }
  .panel-head {
    display: flex;
    align-items: center;
    justify-content: space-between;
    padding: 0.6rem 0.75rem 0 1rem;
  }
  .panel-head h2 {
    font-size: 0.95rem;
  }
  lmtab-chat-settings {
    flex: 1;
    min-height: 0;
  }
  .main {
    position: relative;
    display: flex;
    flex-direction: column;
    min-width: 0;
    min-height: 0;
  }
  .top {
    display: flex;
    align-items: center;
    gap: 0.5rem;
    padding: 0.6rem 1rem;
    border-bottom: 1px solid var(--lm-border);
    background: var(--lm-surface);
    min-height: 3.4rem;
  }
  .top lmtab-model-picker {
    flex: 1;
  }
  .only-narrow {
    display: none;
  }
  .log {
    flex: 1;
    overflow-y: auto;
    min-height: 0;
    scroll-behavior: smooth;
  }
  .thread {
    display: flex;
    flex-direction: column;
    gap: 1.4rem;
    max-width: 50rem;
    margin: 0 auto;
    padding: 1.5rem 1.25rem 1rem;
  }
  .compose {
    padding: 0 1.25rem 0.9rem;
    max-width: 52.5rem;
    width: 100%;
    margin: 0 auto;
  }
  .empty {
    margin: auto;
    max-width: 28rem;
    padding: 3rem 1.5rem;
    text-align: center;
  }
  .empty .mark {
    display: inline-flex;
    padding: 0.8rem;
    border-radius: 1rem;
    background: var(--lm-accent-soft);
    color: var(--lm-accent-on-soft);
  }
  .empty .mark svg {
    width: 1.8rem;
    height: 1.8rem;
  }
  .empty h2 {
    margin: 1rem 0 0.5rem;
    font-size: 1.2rem;
  }
  .empty p {
    margin: 0 0 1.25rem;
    color: var(--lm-muted);
    line-height: 1.5;
  }
  .links {
    display: flex;
    gap: 0.5rem;
    justify-content: center;
    flex-wrap: wrap;
  }
  a.button {
    display: inline-flex;
    align-items: center;
    gap: 0.4rem;
    padding: 0.5rem 0.9rem;
    border-radius: var(--lm-radius-sm);
    border: 1px solid var(--lm-border);
    color: inherit;
    text-decoration: none;
    font-size: 0.875rem;
    font-weight: 500;
    background: var(--lm-surface);
  }
  a.button.primary {
    background: var(--lm-accent);
    border-color: var(--lm-accent);
    color: var(--lm-accent-text);
  }
  .notice {
    margin: 0.75rem 1rem 0;
    padding: 0.6rem 0.8rem;
    border-radius: var(--lm-radius-sm);
    background: var(--lm-danger-soft);
    font-size: 0.875rem;
  }
  .drop {
    position: absolute;
    inset: 0.5rem;
    z-index: 5;
    display: grid;
    place-items: center;
    border: 2px dashed var(--lm-accent);
    border-radius: var(--lm-radius);
    background: color-mix(in srgb, var(--lm-bg) 85%, transparent);
    font-weight: 600;
    color: var(--lm-accent-on-soft);
    pointer-events: none;
  }
  .scrim {
    display: none;
  }
  @media (max-width: 1099px) {
    :host {
      grid-template-columns: 15rem minmax(0, 1fr);
    }
    .settings {
      position: absolute;
      top: 0;
      right: 0;
      bottom: 0;
      z-index: 20;
      width: min(20rem, 100%);
      box-shadow: var(--lm-shadow);
    }
    .scrim.show {
      display: block;
      position: absolute;
      inset: 0;
      z-index: 15;
      background: rgb(0 0 0 / 0.35);
    }
  }
  @media (max-width: 759px) {
    :host {
      grid-template-columns: minmax(0, 1fr);
    }
    .chats {
      display: none;
    }
    .chats.open {
      display: flex;
      position: absolute;
      top: 0;
      left: 0;
      bottom: 0;
      z-index: 20;
      width: min(18rem, 85%);
      box-shadow: var(--lm-shadow);
    }
    .only-narrow {
      display: inline-flex;
    }
    .top {
      padding: 0.5rem 0.6rem;
      gap: 0.35rem;
    }
    .thread {
      padding: 1rem 0.75rem 0.75rem;
    }
    .compose {
      padding: 0 0.6rem 0.6rem;
    }
  }
`;
