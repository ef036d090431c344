import {
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  unlinkSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LmtabError } from '../../errors/index.js';

/** The file in a profile folder that names the relay using it. */
const LOCK_FILE = 'lmtab-relay.json';

/** Who holds a browser profile: an lmtab relay (with its URL) or some other Chromium. */
export interface ProfileHolder {
  pid: number;
  /** The holding relay's URL; absent when a browser outside lmtab holds the profile. */
  url?: string;
}

/** A claim on a profile folder, released when the relay stops. */
export interface ProfileClaim {
  release(): void;
}

/** Options of {@link claimProfile}. */
export interface ClaimProfileOptions {
  /** The claiming relay's URL, shown to a second relay that finds the profile taken. */
  url: string;
  /** The claiming process; default this one. */
  pid?: number;
  /** Whether a process is alive; default a signal-0 probe. */
  isAlive?: (pid: number) => boolean;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(path: string): ProfileHolder | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<ProfileHolder>;
    return typeof value.pid === 'number' ? { pid: value.pid, url: value.url } : undefined;
  } catch {
    return undefined;
  }
}

/** Chromium's own lock: a `SingletonLock` symlink to `HOST-PID` while a browser runs on the profile. */
function chromiumHolder(profileDir: string): ProfileHolder | undefined {
  let target: string;
  try {
    target = readlinkSync(join(profileDir, 'SingletonLock'));
  } catch {
    return undefined;
  }
  const match = /^(.*)-(\d+)$/.exec(target);
  if (match === null || match[1] !== hostname()) return undefined;
  return { pid: Number(match[2]) };
}

/**
 * The live process holding a profile folder, if any: a relay's lock file first (it names the
 * relay's URL), else Chromium's singleton lock. Stale locks of dead processes do not count.
 */
export function profileHolder(
  profileDir: string,
  isAlive: (pid: number) => boolean = processAlive,
): ProfileHolder | undefined {
  const relay = readLock(join(profileDir, LOCK_FILE));
  if (relay !== undefined && relay.pid !== process.pid && isAlive(relay.pid)) return relay;
  const browser = chromiumHolder(profileDir);
  if (browser !== undefined && isAlive(browser.pid)) return browser;
  return undefined;
}

/** The one-line error for a profile that another process holds, saying what to do instead. */
export function profileInUseError(profileDir: string, holder: ProfileHolder): LmtabError {
  const who =
    holder.url === undefined
      ? `a Chromium (pid ${holder.pid}) outside lmtab`
      : `the lmtab relay at ${holder.url} (pid ${holder.pid})`;
  const reach =
    holder.url === undefined
      ? 'close that browser'
      : `use that relay (LMTAB_HOST=${new URL(holder.url).host} lmtab ...)`;
  return new LmtabError(
    'no_engine',
    `The browser profile ${profileDir} is in use by ${who}: ${reach}, or pass another --profile-dir.`,
  );
}

/**
 * Claims a headless engine's profile folder for this relay, so a second relay on the same folder
 * fails at once with one line naming the holder, instead of failing every request later with
 * Chromium's ProcessSingleton dump. Throws that error when a live process holds the folder.
 */
export function claimProfile(profileDir: string, options: ClaimProfileOptions): ProfileClaim {
  const pid = options.pid ?? process.pid;
  const isAlive = options.isAlive ?? processAlive;
  const path = join(profileDir, LOCK_FILE);
  mkdirSync(profileDir, { recursive: true });
  const holder = profileHolder(profileDir, isAlive);
  if (holder !== undefined && holder.pid !== pid) throw profileInUseError(profileDir, holder);
  // Exclusive create: of two relays starting together, one wins and the other sees its lock.
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid, url: options.url }));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const current = readLock(path);
      if (current !== undefined && current.pid !== pid && isAlive(current.pid)) {
        throw profileInUseError(profileDir, current);
      }
      // A stale lock of a relay that died without releasing it.
      unlinkSync(path);
    }
  }
  return {
    release() {
      if (readLock(path)?.pid === pid) unlinkSync(path);
    },
  };
}
