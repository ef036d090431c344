// `npm run soak -- --minutes N`: `lmtab serve --headless` on loopback under mixed traffic for N
// minutes, with the engine's renderer killed every few minutes and the relay restarted; reports
// requests sent, answered, failed with a clear error, refused while the relay was down, cut by the
// client on purpose, and lost (no answer at all), with relay and renderer memory over time. Exits
// 1 when a request was lost or none was answered.
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
import { runKind, soakKinds, soakModels, type Outcome, type SoakResult } from './soak-traffic.js';
import { formatReport, type MemorySample, type SoakEvent, type SoakReport } from './soak-report.js';

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
if (!(minutes > 0) || !Number.isInteger(clients) || clients < 1) {
  console.error(
    `expected --minutes > 0 and --clients >= 1, received ${values.minutes} and ${values.clients}`,
  );
  process.exit(2);
}
const durationMs = minutes * 60_000;
// A renderer killed every few minutes; in a short run, once, a third of the way in.
const killEveryMs =
  values['kill-every'] !== undefined
    ? Number(values['kill-every']) * 60_000
    : minutes >= 9
      ? 180_000
      : Number.POSITIVE_INFINITY;
const firstKillMs = Number.isFinite(killEveryMs) ? killEveryMs : durationMs / 3;
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
const started = Date.now();
const at = () => Date.now() - started;
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
  throw new Error(`lmtab serve did not answer /health within 60 s; see ${work}/relay.log`);
}

/** Stops the relay as a person or a service manager does (SIGTERM) and waits for it to exit. */
async function stopRelay(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const late = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(late);
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
  say(
    `traffic for ${minutes} min from ${clients} clients; a renderer killed ${Number.isFinite(killEveryMs) ? `every ${(killEveryMs / 60_000).toFixed(1)} min` : `at ${Math.round(firstKillMs / 1000)} s`}, the relay restarted at ${Math.round(minutes * 0.65 * 60)} s`,
  );

  const trafficStart = Date.now();
  const end = trafficStart + durationMs;
  let restarting: Promise<void> | undefined;
  const sampler = setInterval(() => {
    const renderer = engineRenderer();
    samples.push({
      seconds: Math.round(at() / 1000),
      relayMiB: relay?.pid === undefined ? 0 : mib(residentBytes(relay.pid)),
      rendererMiB: renderer === undefined ? 0 : mib(renderer.bytes),
    });
  }, 5000);

  const chaos = (async () => {
    let nextKill = trafficStart + firstKillMs;
    const restartAt = trafficStart + durationMs * 0.65;
    let restarted = false;
    while (Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (Date.now() >= nextKill) {
        nextKill += killEveryMs;
        const renderer = engineRenderer();
        if (renderer !== undefined) {
          process.kill(renderer.pid, 'SIGKILL');
          events.push({
            seconds: Math.round(at() / 1000),
            what: `renderer ${renderer.pid} killed (${mib(renderer.bytes)} MiB)`,
          });
          say(events.at(-1)!.what);
        }
      }
      if (!restarted && Date.now() >= restartAt) {
        restarted = true;
        restarting = (async () => {
          const old = relay!;
          await stopRelay(old);
          relay = await startRelay();
          events.push({
            seconds: Math.round(at() / 1000),
            what: `relay restarted (pid ${old.pid} -> ${relay.pid})`,
          });
          say(events.at(-1)!.what);
        })();
        await restarting;
      }
    }
  })();

  const client = async (index: number) => {
    let turn = index;
    while (Date.now() < end) {
      const kind = soakKinds[turn % soakKinds.length]!;
      turn += clients;
      const result = await runKind(base, kind, requestTimeoutMs);
      results.push(result);
      if (result.outcome === 'lost') say(`LOST ${result.kind}: ${result.detail}`);
      // While the relay is down, try again shortly rather than spin.
      await new Promise((resolve) =>
        setTimeout(resolve, result.outcome === 'refused' ? 500 : Math.random() * 200),
      );
    }
  };
  await Promise.all([chaos, ...Array.from({ length: clients }, (_, i) => client(i))]);
  await restarting;
  clearInterval(sampler);
} finally {
  if (relay !== undefined) await stopRelay(relay);
  log.end();
}

const count = (outcome: Outcome) => results.filter((r) => r.outcome === outcome).length;
const report: SoakReport = {
  minutes,
  clients,
  sent: results.length,
  answered: count('answered'),
  failed: count('failed'),
  refused: count('refused'),
  cut: count('cut'),
  lost: count('lost'),
  results,
  events,
  samples,
};
const ok = report.lost === 0 && report.answered > 0;
console.log(formatReport(report));
await mkdir(join(root.pathname, 'reports'), { recursive: true });
// .ci/run adds these counts to its "N passed, N failed" line.
await writeFile(
  join(root.pathname, values.out),
  `${JSON.stringify({ ...report, numPassedTests: ok ? 1 : 0, numFailedTests: ok ? 0 : 1 }, null, 2)}\n`,
);
if (ok) await rm(work, { recursive: true, force: true });
else console.log(`kept ${work} (relay.log, profile) for a look`);
process.exit(ok ? 0 : 1);
