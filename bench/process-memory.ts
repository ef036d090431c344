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

/** Resident bytes of a process tree by kind (`/proc/PID/status`): anonymous, file-backed, shared. */
export interface RssParts {
  anon: number;
  file: number;
  shmem: number;
  /** Anonymous bytes by Chromium process type (`--type=`: renderer, gpu-process, utility; browser). */
  anonByType: Record<string, number>;
}

/** The pids of `root` and all its descendants now. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of pids()) {
    const parent = parentOf(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** VmRSS of a process tree split into RssAnon, RssFile and RssShmem, summed over its processes. */
export function treeRssParts(root: number): RssParts {
  const parts: RssParts = { anon: 0, file: 0, shmem: 0, anonByType: {} };
  for (const pid of tree(root)) {
    const status = read(`/proc/${pid}/status`) ?? '';
    const type =
      /--type=([\w-]+)/.exec(read(`/proc/${pid}/cmdline`)?.replaceAll('\0', ' ') ?? '')?.[1] ??
      'browser';
    const anon = /RssAnon:\s+(\d+) kB/.exec(status);
    if (anon) parts.anonByType[type] = (parts.anonByType[type] ?? 0) + Number(anon[1]) * 1024;
    for (const [key, field] of [
      ['anon', 'RssAnon'],
      ['file', 'RssFile'],
      ['shmem', 'RssShmem'],
    ] as const) {
      const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
      if (match) parts[key] += Number(match[1]) * 1024;
    }
  }
  return parts;
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

/**
 * Samples a process tree's resident memory until stopped; answers the peak of the sums, and the
 * sample's split by kind at that peak.
 */
export function samplePeakRss(
  root: number,
  intervalMs = 250,
): {
  stop(): number;
  stopWithParts(): { peak: number; parts: RssParts };
  /** The peak so far and the sum now, sampling once more. */
  now(): { peak: number; total: number };
} {
  let peak = -1;
  let parts: RssParts = { anon: 0, file: 0, shmem: 0, anonByType: {} };
  const sample = () => {
    const now = treeRssParts(root);
    const total = now.anon + now.file + now.shmem;
    if (total > peak) [peak, parts] = [total, now];
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  const stopWithParts = () => {
    clearInterval(timer);
    sample();
    return { peak, parts };
  };
  const now = () => {
    const parts = treeRssParts(root);
    const total = parts.anon + parts.file + parts.shmem;
    if (total > peak) peak = total;
    return { peak, total };
  };
  return { stop: () => stopWithParts().peak, stopWithParts, now };
}
