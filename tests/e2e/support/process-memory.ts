import { readdirSync, readFileSync } from 'node:fs';

/** One Chromium process of a browser, as /proc shows it. */
export interface ChromiumProcess {
  pid: number;
  /** `browser`, or the `--type=` of a child (`renderer`, `gpu-process`, `utility`, `zygote`). */
  type: string;
}

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The processes of the Chromium started with `--user-data-dir=<profileDir>`: its browser process
 * and every descendant (renderers hang below the zygote), found by walking /proc (Linux only).
 */
export function chromiumProcesses(profileDir: string): ChromiumProcess[] {
  const parents = new Map<number, number>();
  const commands = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const stat = readProc(pid, 'stat');
    const command = readProc(pid, 'cmdline');
    if (stat === undefined || command === undefined) continue;
    // The command name may hold spaces and parentheses: the parent pid follows the last ')'.
    parents.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    commands.set(pid, command.split('\0').join(' '));
  }
  // Debian's /usr/bin/chromium is a shell script: the browser is the non-shell process.
  const root = [...commands].find(
    ([, command]) =>
      command.includes(`--user-data-dir=${profileDir}`) &&
      !command.includes('--type=') &&
      !/^\S*sh /.test(command),
  )?.[0];
  if (root === undefined) return [];
  const found: ChromiumProcess[] = [{ pid: root, type: 'browser' }];
  for (let i = 0; i < found.length; i++) {
    for (const [pid, parent] of parents) {
      if (parent !== found[i].pid) continue;
      const type = /--type=([\w-]+)/.exec(commands.get(pid) ?? '')?.[1] ?? 'other';
      found.push({ pid, type });
    }
  }
  return found;
}

/** Resident memory of a process in bytes (VmRSS), or 0 once it is gone. */
export function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readProc(pid, 'status') ?? '');
  return match ? Number(match[1]) * 1024 : 0;
}
