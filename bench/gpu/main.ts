// `npm run bench:gpu -- --pack | --dry-run | --fold DIR` (bundled and started by bench-gpu.mjs):
//   --pack      writes the GPU bench bundle into bench/.cache/gpu/bundle (size-gated)
//   --dry-run   packs, then runs the bundle's run.sh end to end here on lavapipe with the tiny
//               models, checks what it wrote, and reports to reports/bench-gpu.json (CI sums it)
//   --fold DIR  a GPU run into bench/results/gpu-*.json, gpu-latest.md and docs/performance.md
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureWebgpu, webgpuEnv } from '../../tests/support/webgpu/ensure-webgpu.mjs';
import { performancePage, replaceDocSection } from '../report.js';
import { gpuRunProblems, readGpuRun, summarizeGpuRun } from './gpu-report.js';
import { packGpuBundle, sizeLimitBytes, type PackResult } from './pack.js';

// npm runs scripts from the repository's root (this file runs bundled, from bench/.cache).
const root = process.cwd();
const bundleDir = join(root, 'bench/.cache/gpu/bundle');
const log = (line: string) => process.stdout.write(line + '\n');
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** Packs, prints the sizes, and says whether the size gate holds. */
async function pack(): Promise<{ result: PackResult; fits: boolean }> {
  const result = await packGpuBundle({ root, dir: bundleDir, log });
  const total = result.bundleBytes + result.trackedBytes;
  const fits = total <= sizeLimitBytes;
  for (const [file, bytes] of Object.entries(result.files).sort((a, b) => b[1] - a[1])) {
    log(`  ${mib(bytes).padStart(9)}  ${file}`);
  }
  log(
    `bundle ${mib(result.bundleBytes)} + tracked tree ${mib(result.trackedBytes)} = ${mib(total)} (limit ${mib(sizeLimitBytes)}): ${fits ? 'fits' : 'TOO LARGE'}`,
  );
  log(`bundle: ${result.dir}`);
  return { result, fits };
}

interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}

async function dryRun(): Promise<boolean> {
  const checks: Check[] = [];
  const installed = ensureWebgpu({ log });
  const { fits, result } = await pack();
  checks.push({
    name: 'the bundle and the tracked tree fit 63 MiB',
    ok: fits,
    detail: mib(result.bundleBytes + result.trackedBytes),
  });
  // A copy, unpacked and run as on the GPU machine; lavapipe stands in for the GPU's driver.
  const machine = join(root, 'bench/.cache/gpu/dry-run');
  rmSync(machine, { recursive: true, force: true });
  cpSync(bundleDir, machine, { recursive: true });
  const env = webgpuEnv(installed);
  delete env.LMTAB_DAWN;
  delete env.LMTAB_NODE24;
  const started = Date.now();
  let ran = true;
  try {
    execFileSync('bash', [join(machine, 'run.sh'), '--dry-run'], { stdio: 'inherit', env });
  } catch {
    ran = false;
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  checks.push({
    name: 'run.sh --dry-run ends without a failed step',
    ok: ran,
    detail: `${seconds} s`,
  });
  const results = join(machine, 'results');
  const files = existsSync(results) ? readdirSync(results) : [];
  checks.push({
    name: 'run.sh writes at most 8 result files',
    ok: files.length <= 8,
    detail: files.join(', '),
  });
  try {
    const problems = gpuRunProblems(readGpuRun(results));
    checks.push({
      name: 'every model on the GPU with the toggle, the CPU fallback without it, native rows',
      ok: problems.length === 0,
      detail: problems.join('; ') || undefined,
    });
  } catch (error) {
    checks.push({ name: 'the results can be read', ok: false, detail: String(error) });
  }
  for (const check of checks) {
    log(`${check.ok ? 'ok  ' : 'FAIL'} ${check.name}${check.detail ? `: ${check.detail}` : ''}`);
  }
  const passed = checks.filter((c) => c.ok).length;
  mkdirSync(join(root, 'reports'), { recursive: true });
  // In vitest's report shape, so that .ci/run sums it with the other suites.
  writeFileSync(
    join(root, 'reports/bench-gpu.json'),
    JSON.stringify(
      { numPassedTests: passed, numFailedTests: checks.length - passed, checks },
      null,
      2,
    ) + '\n',
  );
  return passed === checks.length;
}

function fold(dir: string): void {
  const run = readGpuRun(dir);
  if (run.system.dryRun) {
    throw new Error(`--fold: ${dir} holds a dry run (lavapipe, tiny models), not a GPU's figures`);
  }
  const summary = summarizeGpuRun(run);
  const card = (run.system.gpus[0]?.name ?? run.vulkanDevice ?? 'gpu')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const name = `gpu-${run.system.date.slice(0, 19).replace(/:/g, '-')}-${card}.json`;
  const results = join(root, 'bench/results');
  writeFileSync(join(results, name), JSON.stringify(run, null, 2) + '\n');
  writeFileSync(join(results, 'gpu-latest.md'), summary);
  const page = join(root, performancePage);
  writeFileSync(page, replaceDocSection(readFileSync(page, 'utf8'), summary.trim(), 'bench-gpu'));
  log(`wrote bench/results/${name}, gpu-latest.md and ${performancePage}'s GPU section`);
}

async function main(): Promise<number> {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  if (manifest.name !== 'lmtab')
    throw new Error(`bench:gpu: run it from lmtab's root, not ${root}`);
  const { values } = parseArgs({
    options: {
      pack: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      fold: { type: 'string' },
    },
  });
  if (values.fold) {
    fold(resolve(values.fold));
    return 0;
  }
  if (values['dry-run']) return (await dryRun()) ? 0 : 1;
  if (values.pack) return (await pack()).fits ? 0 : 1;
  log('usage: npm run bench:gpu -- --pack | --dry-run | --fold DIR');
  return 2;
}

process.exitCode = await main();
