import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every relative link in the README, docs/ and the folders' READMEs must reach a file, and an
// `#anchor` must name a heading of the page it points to, as GitHub renders them.

const root = fileURLToPath(new URL('../../', import.meta.url));

/** How the checker reaches files: paths are relative to the repository's root, with `/`. */
interface DocFiles {
  exists(path: string): boolean;
  /** A markdown file's text, or undefined when there is none. */
  read(path: string): string | undefined;
}

/** Markdown without its fenced blocks, so that code is never read as links or headings. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, '');
}

/** GitHub's anchor for a heading's text (github-slugger): lower case, punctuation dropped. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page offers: its headings' slugs, numbered when repeated, and `id`/`name`s. */
function anchors(markdown: string): Set<string> {
  const text = withoutFences(markdown);
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/gm)) {
    const base = slug(heading!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id] of text.matchAll(/<[a-z]+\b[^>]*\b(?:id|name)="([^"]+)"/gi)) found.add(id!);
  return found;
}

/** Every link target in a page: inline links and images, reference definitions, `<img>`/`<a>`. */
function linkTargets(markdown: string): string[] {
  const text = withoutFences(markdown).replace(/(`+)[\s\S]*?\1/g, 'code');
  const targets: string[] = [];
  for (const [, target] of text.matchAll(/\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(target!.replace(/^<|>$/g, ''));
  }
  for (const [, target] of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*(\S+)/gm)) targets.push(target!);
  for (const [, target] of text.matchAll(/<(?:img|a)\b[^>]*\b(?:src|href)="([^"]+)"/gi)) {
    targets.push(target!);
  }
  return targets;
}

/** The relative links of `path` that do not resolve, each as `path: target (why)`. */
function brokenLinks(path: string, markdown: string, files: DocFiles): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
    const hash = target.indexOf('#');
    const file = decodeURI(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved =
      file === ''
        ? path
        : posix.normalize(
            file.startsWith('/') ? file.slice(1) : posix.join(posix.dirname(path), file),
          );
    if (resolved.startsWith('..') || !files.exists(resolved)) {
      broken.push(`${path}: ${target} (no file ${resolved})`);
      continue;
    }
    if (anchor === undefined || !resolved.endsWith('.md')) continue;
    const page = resolved === path ? markdown : files.read(resolved);
    if (page === undefined || !anchors(page).has(anchor)) {
      broken.push(`${path}: ${target} (no heading #${anchor} in ${resolved})`);
    }
  }
  return broken;
}

/** The pages checked: README.md, every page under docs/, and each folder's README and NOTES. */
function projectDocs(): string[] {
  const pages = ['README.md'];
  const walk = (dir: string, every: boolean) => {
    for (const entry of readdirSync(posix.join(root, dir), { withFileTypes: true })) {
      const path = posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && entry.name !== 'node_modules') walk(path, every);
      } else if (every ? entry.name.endsWith('.md') : /^(README|NOTES)\.md$/.test(entry.name)) {
        pages.push(path);
      }
    }
  };
  walk('docs', true);
  for (const dir of ['src', 'sw', 'bench', 'soak', 'wasm', 'tests', 'eslint']) {
    if (existsSync(posix.join(root, dir))) walk(dir, false);
  }
  return pages;
}

const repository: DocFiles = {
  exists: (path) => existsSync(posix.join(root, path)),
  read: (path) =>
    existsSync(posix.join(root, path)) ? readFileSync(posix.join(root, path), 'utf8') : undefined,
};

describe('the documentation', () => {
  it('keeps the README to a five-minute read: at most 250 lines', () => {
    const lines = readFileSync(posix.join(root, 'README.md'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(250);
  });

  it('has no relative link that misses its file or heading', () => {
    const pages = projectDocs();
    expect(pages).toContain('docs/README.md');
    const broken = pages.flatMap((path) => brokenLinks(path, repository.read(path)!, repository));
    expect(broken).toEqual([]);
  });
});

describe('the link checker', () => {
  const pages = new Map([
    ['README.md', '# lmtab\n\nSee [the API](docs/api.md#routes) and [install](#install).\n'],
    ['docs/api.md', '# The API\n\n## Routes\n\n## Routes\n\n```md\n## Not a heading\n```\n'],
  ]);
  const files: DocFiles = {
    exists: (path) => pages.has(path) || path === 'docs/screenshots/chat.png',
    read: (path) => pages.get(path),
  };

  it('accepts links whose file and heading exist', () => {
    const text = [
      '# lmtab',
      '## Install',
      'See [the API](docs/api.md#routes), [again](./docs/api.md#routes-1), [this](#install),',
      '![chat](docs/screenshots/chat.png), <img src="docs/screenshots/chat.png">, [web](https://x.y),',
      'and `[code](nowhere.md)`.',
    ].join('\n\n');
    expect(brokenLinks('README.md', text, files)).toEqual([]);
  });

  it('rejects a missing file, a missing heading, a heading inside code, a path above the root', () => {
    const text = [
      '[gone](docs/missing.md)',
      '[anchor](docs/api.md#responses)',
      '[fenced](docs/api.md#not-a-heading)',
      '<img src="../outside.png">',
      '[here](#nowhere)',
    ].join('\n\n');
    expect(brokenLinks('README.md', text, files)).toEqual([
      'README.md: docs/missing.md (no file docs/missing.md)',
      'README.md: docs/api.md#responses (no heading #responses in docs/api.md)',
      'README.md: docs/api.md#not-a-heading (no heading #not-a-heading in docs/api.md)',
      'README.md: #nowhere (no heading #nowhere in README.md)',
      'README.md: ../outside.png (no file ../outside.png)',
    ]);
  });

  it('slugs headings as GitHub does', () => {
    expect(slug("Chrome's Prompt API (`LanguageModel`) for any page")).toBe(
      'chromes-prompt-api-languagemodel-for-any-page',
    );
    expect(slug('Audio: transcriptions, `input_audio`, speech')).toBe(
      'audio-transcriptions-input_audio-speech',
    );
    expect(slug('Coding agents: `lmtab launch`')).toBe('coding-agents-lmtab-launch');
  });
});
