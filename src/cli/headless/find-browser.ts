import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where Chrome and Chromium usually are, besides the PATH. */
const knownPaths = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
  'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe',
];

const commandNames = [
  'chromium',
  'chromium-browser',
  'google-chrome',
  'google-chrome-stable',
  'chrome',
  'microsoft-edge',
  'msedge',
];

/** Options of {@link findBrowser}. */
export interface FindBrowserOptions {
  /** The environment (`LMTAB_BROWSER`, `PATH`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Whether a path is an executable file; default a real check. */
  isExecutable?: (path: string) => boolean;
}

/** Which browser a headless engine would use, or why there is none. */
export type BrowserFound = { path: string } | { problem: string };

/**
 * Finds a Chrome or Chromium for the headless engine: `LMTAB_BROWSER` when set (it must exist),
 * else a usual install path or a browser command on the PATH.
 */
export function findBrowser(options: FindBrowserOptions = {}): BrowserFound {
  const env = options.env ?? process.env;
  const isExecutable = options.isExecutable ?? executable;
  const chosen = env.LMTAB_BROWSER;
  if (chosen !== undefined && chosen !== '') {
    return isExecutable(chosen)
      ? { path: chosen }
      : { problem: `LMTAB_BROWSER is ${chosen}, which is not an executable file` };
  }
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '')
    .flatMap((dir) => commandNames.map((name) => join(dir, name)));
  const path = [...knownPaths, ...onPath].find(isExecutable);
  return path === undefined
    ? { problem: 'no Chrome or Chromium was found on this machine' }
    : { path };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
