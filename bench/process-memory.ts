import { readdirSync, readFileSync } from 'node:fs';

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function parentOf(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  // The command name in parentheses may hold spaces: the parent pid follows its closing one.
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields ? Number(fields[1]) : undefined;
}

function pids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** The browser process started with `--user-data-dir=profileDir` (Linux `/proc`), if any. */
export function findBrowserPid(profileDir: string): number | undefined {
  const flag = `--user-data-dir=${profileDir}`;
  const matching = pids().filter((pid) => read(`/proc/${pid}/cmdline`)?.split('\0').includes(flag));
  return matching.find((pid) => !matching.includes(parentOf(pid) ?? -1));
}

/** Resident bytes (VmRSS) of `root` and all its descendants now. */
export function treeRssBytes(root: number): number {
  const children = new Map<number, number[]>();
  for (const pid of pids()) {
    const parent = parentOf(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    const match = /VmRSS:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`) ?? '');
    if (match) total += Number(match[1]) * 1024;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Samples a process tree's resident memory until stopped; answers the peak of the sums. */
export function samplePeakRss(root: number, intervalMs = 250): { stop(): number } {
  let peak = treeRssBytes(root);
  const timer = setInterval(() => (peak = Math.max(peak, treeRssBytes(root))), intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, treeRssBytes(root));
    },
  };
}
