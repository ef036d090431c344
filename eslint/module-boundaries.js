// ESLint rule `lmtab/module-boundaries`: where code runs, and each capability's public surface.
// Which side a file is on is read from the two tsconfigs (tsconfig.node.json compiles without the
// DOM, tsconfig.browser.json without Node's types; a file both compile runs anywhere), so the build
// and the lint share one definition. Two checks, on every relative import and `node:` import:
// - across the line: Node-only code imports no browser-only file, browser-only code no Node-only
//   file and no Node built-in, code that runs anywhere imports only code that runs anywhere;
// - through the entry: an import into another capability folder (`src/<name>/`, `sw/`) names its
//   `index.ts`, or its `wire.ts` (the part both sides read), never a file behind them. Test support
//   in a `testing/` folder is open to tests and to other test support.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entries = ['index.ts', 'wire.ts'];

/** A tsconfig's include/exclude as matchers of root-relative paths (folders, `*` and `**`). */
function readScope(file) {
  const { include = [], exclude = [] } = JSON.parse(readFileSync(resolve(root, file), 'utf8'));
  const toRegExp = (pattern) => {
    const body = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*\*\//g, '<any-folders>')
      .replace(/\*\*/g, '<anything>')
      .replace(/\*/g, '[^/]*')
      .replace(/<any-folders>/g, '(?:.*/)?')
      .replace(/<anything>/g, '.*');
    return new RegExp(`^${body}(?:/.*)?$`);
  };
  const included = include.map(toRegExp);
  const excluded = exclude.map(toRegExp);
  return (path) => included.some((r) => r.test(path)) && !excluded.some((r) => r.test(path));
}

const inNode = readScope('tsconfig.node.json');
const inBrowser = readScope('tsconfig.browser.json');

/** 'node', 'browser', 'anywhere', or undefined for files neither build compiles (tests, tools). */
function sideOf(path) {
  const node = inNode(path);
  const browser = inBrowser(path);
  if (node && browser) return 'anywhere';
  if (node) return 'node';
  if (browser) return 'browser';
  return undefined;
}

/** The capability folder a root-relative path lies in (`src/api`, `sw`), if any. */
function capabilityOf(path) {
  const match = /^(src\/[^/]+|sw)\//.exec(path);
  return match && match[0].slice(0, -1) !== path ? match[1] : undefined;
}

const isTestSupport = (path) =>
  /\.(test|spec)\.ts$/.test(path) || /(^|\/)testing\//.test(path) || path.startsWith('tests/');

/** The file an import names: `.js` specifiers resolve to the `.ts` source beside them. */
function resolveImport(fromFile, specifier) {
  const target = resolve(dirname(fromFile), specifier);
  const ts = target.replace(/\.js$/, '.ts');
  return relative(root, existsSync(ts) ? ts : target)
    .split('\\')
    .join('/');
}

const sideNames = {
  node: 'in Node',
  browser: 'in the browser',
  anywhere: 'anywhere (browser and Node)',
};

/** May code on side `from` import a file on side `to`? */
function mayImport(from, to) {
  if (from === undefined || to === undefined || to === 'anywhere') return true;
  return from === to;
}

export const moduleBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'keep Node and browser code apart and imports at a folder entry' },
    schema: [],
  },
  create(context) {
    const file = relative(root, context.filename).split('\\').join('/');
    if (file.startsWith('..')) return {};
    const side = sideOf(file);
    const capability = capabilityOf(file);
    const check = (node, specifier) => {
      if (typeof specifier !== 'string') return;
      if (specifier.startsWith('node:')) {
        if (side === 'browser' || side === 'anywhere') {
          context.report({
            node,
            message: `${file} runs ${sideNames[side]} and cannot import the Node built-in '${specifier}'.`,
          });
        }
        return;
      }
      if (!specifier.startsWith('.')) return;
      const target = resolveImport(context.filename, specifier);
      const targetSide = sideOf(target);
      const targetCapability = capabilityOf(target);
      // Inside one folder the build checks the line: tsconfig.node.json compiles all that wire.ts reaches.
      if (targetCapability !== capability && !mayImport(side, targetSide)) {
        context.report({
          node,
          message: `${file} runs ${sideNames[side]} and cannot import ${target}, which runs ${sideNames[targetSide]}.`,
        });
        return;
      }
      if (targetCapability === undefined || targetCapability === capability) return;
      const inside = target.slice(targetCapability.length + 1);
      if (entries.includes(inside)) return;
      if (/(^|\/)testing\//.test(inside) && isTestSupport(file)) return;
      context.report({
        node,
        message: `'${specifier}' reaches past ${targetCapability}'s entry: import from ${targetCapability}/index.ts${existsSync(resolve(root, targetCapability, 'wire.ts')) ? ' or wire.ts' : ''}.`,
      });
    };
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) =>
        node.source.type === 'Literal' && check(node.source, node.source.value),
    };
  },
};
