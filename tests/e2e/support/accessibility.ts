import type { Page } from '@playwright/test';

/** Roles a person operates or reads as a named thing: each needs an accessible name. */
const namedRoles = new Set([
  'button',
  'checkbox',
  'combobox',
  'dialog',
  'image',
  'img',
  'link',
  'listbox',
  'menuitem',
  'meter',
  'progressbar',
  'radio',
  'searchbox',
  'slider',
  'spinbutton',
  'switch',
  'tab',
  'tablist',
  'tabpanel',
  'textbox',
]);

interface AxNode {
  ignored: boolean;
  role?: { value: string };
  name?: { value: string };
  properties?: Array<{ name: string; value: { value: unknown } }>;
}

/**
 * The controls Chromium's accessibility tree shows without a name (shadow DOM included; hidden
 * panels are left out because the tree ignores them), as `role (description)` lines.
 */
export async function unnamedControls(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: AxNode[] };
    return nodes
      .filter((n) => !n.ignored && namedRoles.has(n.role?.value ?? ''))
      .filter((n) => (n.name?.value ?? '').trim() === '')
      .map((n) => `${n.role?.value} (${JSON.stringify(n.properties?.map((p) => p.name))})`);
  } finally {
    await cdp.detach();
  }
}

/**
 * Elements that stick out past the right edge of the viewport, other than inside a container
 * that scrolls or clips them: a page that does this scrolls sideways on a phone.
 */
export function overflowingElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    const parentOf = (el: Element): Element | null =>
      el.parentElement ?? ((el.getRootNode() as ShadowRoot).host as Element | undefined) ?? null;
    const clipped = (el: Element) => {
      for (let up = parentOf(el); up; up = parentOf(up)) {
        const overflow = getComputedStyle(up).overflowX;
        if (overflow !== 'visible') return up.getBoundingClientRect().right <= width + 1;
      }
      return false;
    };
    const visit = (root: Document | ShadowRoot) => {
      for (const el of root.querySelectorAll('*')) {
        const rect = el.getBoundingClientRect();
        if (rect.width > 0 && rect.height > 0 && rect.right > width + 1 && !clipped(el)) {
          found.push(`${el.tagName.toLowerCase()}.${el.className} right=${Math.round(rect.right)}`);
        }
        if (el.shadowRoot) visit(el.shadowRoot);
      }
    };
    visit(document);
    return found;
  });
}
