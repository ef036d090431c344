// `npm run soak -- --minutes N`: `lmtab serve --headless` on loopback under mixed traffic for N
// minutes, with the engine's renderer killed every few minutes and the relay restarted; reports
// requests sent, answered, failed with a clear error, refused while the relay was down, cut by the
// client on purpose, and lost (no answer at all), with relay and renderer memory over time. Exits
// 1 when one of its checks (soak-checks.ts, soak/README.md) fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureEmbeddingFixtures } from '../tests/support/embedding-fixtures.js';
import { ensureFixtures } from '../tests/support/lfm2-fixtures.js';
import { testPorts } from '../tests/support/test-ports.js';
import { chromiumProcesses, residentBytes } from '../tests/e2e/support/process-memory.js';
import { runKind, soakKinds, soakModels, type SoakResult } from './soak-traffic.js';
import {
  formatReport,
  outcomeCounts,
  type MemorySample,
  type SoakEvent,
  type SoakEventType,
  type SoakReport,
} from './soak-report.js';
import { soakChecks } from './soak-checks.js';
import { faultGapMs, faultPlan, quietTailMs, shortestSoakMinutes } from './soak-schedule.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '2' },
    clients: { type: 'string', default: '3' },
    'kill-every': { type: 'string' },
    port: { type: 'string', default: String(testPorts.soakRelay) },
    out: { type: 'string', default: 'reports/soak.json' },
  },
});
const minutes = Number(values.minutes);
const clients = Number(values.clients);
const killEvery = values['kill-every'] === undefined ? undefined : Number(values['kill-every']);
if (
  !(minutes >= shortestSoakMinutes) ||
  !Number.isInteger(clients) ||
  clients < 1 ||
  (killEvery !== undefined && !(killEvery > 0))
) {
  console.error(
    `expected --minutes >= ${shortestSoakMinutes} (the faults and the time after each need it), --clients >= 1 and --kill-every > 0, received ${values.minutes}, ${values.clients} and ${values['kill-every']}`,
  );
  process.exit(2);
}
const durationMs = minutes * 60_000;
const plan = faultPlan(durationMs, killEvery === undefined ? undefined : killEvery * 60_000);
if (plan.killsMs.length === 0) {
  console.error(
    `--kill-every ${killEvery} leaves no renderer kill in ${minutes} minutes (none within ${faultGapMs / 1000} s of the restart or ${quietTailMs / 1000} s of the end)`,
  );
  process.exit(2);
}
const port = Number(values.port);
const base = new URL(`http://127.0.0.1:${port}`);
const requestTimeoutMs = 180_000;
// The runner runs bundled from soak/.cache/runner/.
const root = new URL('../../../', import.meta.url);

const work = await mkdtemp(join(tmpdir(), 'lmtab-soak-'));
const home = join(work, 'home');
const profileDir = join(home, 'browser');
await mkdir(home, { recursive: true });
const log = createWriteStream(join(work, 'relay.log'));
// The zero of every time in the report: the start of the traffic (until then, the soak's start).
let epoch = Date.now();
const at = () => Date.now() - epoch;
const say = (line: string) =>
  console.log(`soak ${(at() / 1000).toFixed(0).padStart(4)} s: ${line}`);

let relay: ChildProcess | undefined;

/** Starts `lmtab serve --headless` and waits until `/health` answers. */
async function startRelay(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      'bin/lmtab.js',
      'serve',
      '--headless',
      '--port',
      String(port),
      '--profile-dir',
      profileDir,
      '--quiet',
    ],
    { cwd: root, env: { ...process.env, LMTAB_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`lmtab serve exited (${child.exitCode}); see ${work}/relay.log`);
    const healthy = await fetch(new URL('/health', base)).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`lmtab serve did not answer /health within 60 s; see ${work}/relay.log`);
}

/**
 * Stops the relay as a person or a service manager does (SIGTERM) and waits for it to exit;
 * false when it had to be killed 20 s later.
 */
async function stopRelay(child: ChildProcess): Promise<boolean> {
  if (child.exitCode !== null) return true;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  let killed = false;
  const late = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, 20_000);
  await exited;
  clearTimeout(late);
  return !killed;
}

/** Uploads a GGUF as a blob and creates a model from it, through the relay (as `lmtab create`). */
async function createModel(name: string, path: string): Promise<void> {
  const bytes = await readFile(path);
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  const upload = await fetch(new URL(`/api/blobs/${digest}`, base), {
    method: 'POST',
    body: bytes,
  });
  if (upload.status !== 201 && upload.status !== 200) {
    throw new Error(`uploading ${path}: ${upload.status} ${await upload.text()}`);
  }
  const created = await fetch(new URL('/api/create', base), {
    method: 'POST',
    body: JSON.stringify({ model: name, files: { [`${name}.gguf`]: digest }, stream: false }),
  });
  if (!created.ok) throw new Error(`creating ${name}: ${created.status} ${await created.text()}`);
}

/** The engine tab's renderer: the largest renderer of the headless browser. */
function engineRenderer(): { pid: number; bytes: number } | undefined {
  const renderers = chromiumProcesses(profileDir)
    .filter((p) => p.type === 'renderer')
    .map((p) => ({ pid: p.pid, bytes: residentBytes(p.pid) }));
  return renderers.sort((a, b) => b.bytes - a.bytes)[0];
}

const results: SoakResult[] = [];
const events: SoakEvent[] = [];
const samples: MemorySample[] = [];
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records what the soak did at `ms` (default now) and says it. */
function note(type: SoakEventType, what: string, ms = at()): void {
  events.push({ ms, type, what });
  say(what);
}

/** Kills the engine's renderer and waits until it is gone; a kill that did not happen says why. */
async function killRenderer(): Promise<void> {
  const ms = at();
  const renderer = engineRenderer();
  if (renderer === undefined) return note('renderer-kill-missed', 'no engine renderer found', ms);
  try {
    process.kill(renderer.pid, 'SIGKILL');
  } catch (error) {
    return note('renderer-kill-missed', `SIGKILL to renderer ${renderer.pid}: ${error}`, ms);
  }
  // A dead process (or a zombie not yet reaped) has no resident memory.
  for (let waited = 0; residentBytes(renderer.pid) > 0; waited += 100) {
    if (waited >= 5000) {
      return note('renderer-kill-missed', `renderer ${renderer.pid} alive 5 s after SIGKILL`, ms);
    }
    await sleep(100);
  }
  note('renderer-killed', `renderer ${renderer.pid} killed (${mib(renderer.bytes)} MiB)`, ms);
}

/** Stops the relay and starts it again; a restart that did not go as planned says why. */
async function restartRelay(): Promise<void> {
  const old = relay!;
  note('relay-stopping', `relay ${old.pid} sent SIGTERM`);
  if (await stopRelay(old)) note('relay-stopped', `relay ${old.pid} exited`);
  else note('relay-restart-failed', `relay ${old.pid} did not exit within 20 s of SIGTERM`);
  try {
    relay = await startRelay();
    note('relay-listening', `relay ${relay.pid} listening (was ${old.pid})`);
  } catch (error) {
    relay = undefined;
    note('relay-restart-failed', `starting the relay again: ${error}`);
  }
}

try {
  const fixtureDir = join(root.pathname, 'tests/.cache/fixtures');
  const fixtures = await ensureFixtures(fixtureDir);
  const embedding = await ensureEmbeddingFixtures(fixtureDir);
  relay = await startRelay();
  say(
    `relay up (pid ${relay.pid}); creating ${soakModels.chat} and ${soakModels.embed} (the first request starts the headless engine)`,
  );
  await createModel(soakModels.chat, fixtures.lfm2);
  await createModel(soakModels.embed, embedding.bert);
  epoch = Date.now();
  say(
    `traffic for ${minutes} min from ${clients} clients; the renderer killed at ${plan.killsMs.map((ms) => ms / 1000).join(', ')} s, the relay restarted at ${plan.restartMs / 1000} s`,
  );

  const end = epoch + durationMs;
  const sampler = setInterval(() => {
    const renderer = engineRenderer();
    samples.push({
      seconds: Math.round(at() / 1000),
      relayMiB: relay?.pid === undefined ? 0 : mib(residentBytes(relay.pid)),
      rendererMiB: renderer === undefined ? 0 : mib(renderer.bytes),
    });
  }, 5000);

  const chaos = (async () => {
    const faults = [
      ...plan.killsMs.map((ms) => ({ ms, inject: killRenderer })),
      { ms: plan.restartMs, inject: restartRelay },
    ].sort((a, b) => a.ms - b.ms);
    for (const fault of faults) {
      await sleep(fault.ms - at());
      await fault.inject();
    }
  })();

  const client = async (index: number) => {
    let turn = index;
    while (Date.now() < end) {
      const kind = soakKinds[turn % soakKinds.length]!;
      turn += clients;
      const result = await runKind(base, kind, { timeoutMs: requestTimeoutMs, epoch });
      results.push(result);
      if (result.outcome === 'lost') say(`LOST ${result.kind}: ${result.detail}`);
      // While the relay is down, try again shortly rather than spin.
      await new Promise((resolve) =>
        setTimeout(resolve, result.outcome === 'refused' ? 500 : Math.random() * 200),
      );
    }
  };
  await Promise.all([chaos, ...Array.from({ length: clients }, (_, i) => client(i))]);
  clearInterval(sampler);
} finally {
  if (relay !== undefined) await stopRelay(relay);
  log.end();
}

const report: SoakReport = {
  minutes,
  clients,
  trafficMs: durationMs,
  kinds: soakKinds.map((kind) => kind.name),
  modelKinds: soakKinds.filter((kind) => kind.runsModel).map((kind) => kind.name),
  plan,
  ...outcomeCounts(results),
  results,
  events,
  samples,
};
const checks = soakChecks(report);
const failed = checks.filter((check) => !check.passed).length;
const ok = failed === 0;
console.log(formatReport(report, checks));
await mkdir(join(root.pathname, 'reports'), { recursive: true });
// .ci/run adds these counts to its "N passed, N failed" line.
await writeFile(
  join(root.pathname, values.out),
  `${JSON.stringify({ ...report, checks, numPassedTests: checks.length - failed, numFailedTests: failed }, null, 2)}\n`,
);
if (ok) await rm(work, { recursive: true, force: true });
else console.log(`kept ${work} (relay.log, profile) for a look`);
process.exit(ok ? 0 : 1);
