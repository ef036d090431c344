#!/usr/bin/env node
// Entry of the `lmtab` command: runs the compiled CLI (npm run build makes it).
import { existsSync } from 'node:fs';

const main = new URL('../build/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('lmtab is not built yet: run `npm run build` in its folder first.\n');
  process.exit(1);
}
await import(main.href);
