// `npm test` and `npm run test:quick`: runs every suite in turn, even when an earlier one fails,
// times each, reads its counts from its own report, and ends with one line per suite and the plain
// summary `N passed, N failed` (skipped tests on the line before). A suite whose report is missing,
// or that ran no test, fails by name. Exits non-zero when any suite failed. Writes
// reports/suites.json.
//
//   node tests/run-suites.mjs            every suite (what CI runs)
//   node tests/run-suites.mjs --quick    the inner loop: typecheck, lint, unit, build, smoke specs
//   node tests/run-suites.mjs unit e2e   only the named suites (extra args after -- go to each)
import { spawn } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { relative } from 'node:path';

/** The Playwright projects of the `e2e` suite: all but the heavy specs (playwright.config.ts). */
const lightProjects = ['chromium', 'webgpu-setup', 'webgpu', 'webgpu-swiftshader', 'firefox']
  .map((name) => `--project ${name}`)
  .join(' ');

/**
 * Every suite, in the order they run. Suites of one `stage` run at the same time (each a single
 * process that leaves the other core free: typecheck, lint and the build), their output kept in
 * reports/logs/NAME.log and printed when the stage ends. `report` is the file the suite writes and
 * `read` turns it into counts; a suite without a report (typecheck, lint, build) counts as one
 * check that passed or failed by its exit code. `cost` is what the suite took on the 2-core
 * machine of docs/development.md's figures: a new suite states its own.
 */
const suites = [
  { name: 'typecheck', command: 'npm run typecheck', cost: '1 min', quick: true, stage: 'static' },
  { name: 'lint', command: 'npm run lint', cost: '1.5 min', quick: true, stage: 'static' },
  { name: 'build', command: 'npm run build', cost: '1 min', quick: true, stage: 'static' },
  {
    name: 'unit',
    command: 'npm run test:unit',
    report: 'reports/unit.json',
    read: vitestCounts,
    cost: '1 min',
    quick: true,
  },
  {
    name: 'webgpu',
    command: 'npm run test:webgpu',
    report: 'reports/webgpu.json',
    read: vitestCounts,
    cost: '0.5 min',
  },
  {
    name: 'e2e',
    command: `npm run test:e2e -- ${lightProjects}`,
    quickCommand: `npm run test:e2e -- ${lightProjects} --grep @smoke`,
    report: 'reports/e2e.json',
    read: playwrightCounts,
    cost: '16 min',
    quick: true,
  },
  {
    name: 'e2e-heavy',
    command:
      'LMTAB_E2E_REPORT=reports/e2e-heavy.json npm run test:e2e -- --project heavy-storage --project heavy-tools',
    report: 'reports/e2e-heavy.json',
    read: playwrightCounts,
    cost: '7 min',
  },
  {
    name: 'soak',
    command: 'npm run soak -- --minutes 2',
    report: 'reports/soak.json',
    read: vitestCounts,
    cost: '2 min',
  },
  {
    name: 'bench-gpu',
    command: 'npm run bench:gpu -- --dry-run',
    report: 'reports/bench-gpu.json',
    read: vitestCounts,
    cost: '0.5 min (6 to 14 min on a new machine)',
  },
];

/** vitest's JSON reporter (and the soak and GPU dry run, which write the same fields). */
function vitestCounts(report) {
  const failures = (report.testResults ?? []).flatMap((file) =>
    (file.assertionResults ?? [])
      .filter((test) => test.status === 'failed')
      .map((test) => `${relative(process.cwd(), file.name ?? '')} > ${test.fullName}`),
  );
  return {
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
    failures,
  };
}

/** Playwright's JSON reporter: a flaky test passed on a retry (this project runs none). */
function playwrightCounts(report) {
  const { expected = 0, flaky = 0, unexpected = 0, skipped = 0 } = report.stats ?? {};
  const failures = [];
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== 'unexpected') continue;
        failures.push(
          `[${test.projectName}] ${spec.file}:${spec.line} > ${[...titles, spec.title].join(' > ')}`,
        );
      }
    }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  return { passed: expected + flaky, failed: unexpected, skipped, failures };
}

/** Runs `command`, its output to ours or into `log`; resolves to its exit code. */
function run(command, extra, log) {
  const line = extra.length > 0 ? `${command} -- ${extra.join(' ')}` : command;
  return new Promise((resolve) => {
    const out = log ? createWriteStream(log) : undefined;
    const child = spawn(line, { shell: true, stdio: out ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    child.stdout?.pipe(out, { end: false });
    child.stderr?.pipe(out, { end: false });
    child.on('exit', (code, signal) => {
      const status = code ?? (signal ? 128 : 1);
      if (out) out.end(() => resolve(status));
      else resolve(status);
    });
  });
}

/** Runs one suite and says what came of it; never throws. */
async function runSuite(suite, { quick, extra, log }) {
  if (suite.report) rmSync(suite.report, { force: true });
  const command = quick && suite.quickCommand ? suite.quickCommand : suite.command;
  if (!log) process.stdout.write(`\n=== suite ${suite.name}: ${command}\n`);
  const started = Date.now();
  const code = await run(command, extra, log);
  if (log) {
    process.stdout.write(`\n=== suite ${suite.name}: ${command} (ran beside others)\n`);
    process.stdout.write(readFileSync(log, 'utf8'));
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  const result = {
    name: suite.name,
    seconds,
    exitCode: code,
    passed: 0,
    failed: 0,
    skipped: 0,
    failures: [],
  };
  if (!suite.report) {
    if (code === 0) result.passed = 1;
    else result.failed = 1;
    return result;
  }
  if (!existsSync(suite.report)) {
    result.problem = `its report ${suite.report} is missing`;
    return result;
  }
  try {
    Object.assign(result, suite.read(JSON.parse(readFileSync(suite.report, 'utf8'))));
  } catch (error) {
    result.problem = `its report ${suite.report} cannot be read (${error.message})`;
    return result;
  }
  if (result.passed + result.failed === 0) result.problem = 'it ran no test';
  else if (code !== 0 && result.failed === 0) result.problem = `it exited ${code}`;
  return result;
}

/** The chosen suites in order, those of one `stage` next to each other grouped. */
function stagesOf(chosen) {
  const stages = [];
  for (const suite of chosen) {
    const last = stages.at(-1);
    if (suite.stage !== undefined && last?.[0].stage === suite.stage) last.push(suite);
    else stages.push([suite]);
  }
  return stages;
}

function suiteFailed(result) {
  return result.failed > 0 || result.problem !== undefined || result.exitCode !== 0;
}

function formatLine(result) {
  const minutes = `${Math.floor(result.seconds / 60)}:${String(result.seconds % 60).padStart(2, '0')}`;
  const counts = `${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped`;
  const verdict = suiteFailed(result)
    ? `FAILED${result.problem ? `: ${result.problem}` : ''}`
    : 'ok';
  return `suite ${result.name.padEnd(10)} ${minutes.padStart(6)}  ${counts}  ${verdict}`;
}

async function main() {
  const args = process.argv.slice(2);
  const dash = args.indexOf('--');
  const extra = dash >= 0 ? args.slice(dash + 1) : [];
  const own = dash >= 0 ? args.slice(0, dash) : args;
  const quick = own.includes('--quick');
  const named = own.filter((arg) => !arg.startsWith('--'));
  const unknown = named.filter((name) => !suites.some((suite) => suite.name === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `run-suites: unknown suite ${unknown.join(', ')}; expected one of ${suites.map((s) => s.name).join(', ')}\n`,
    );
    return 2;
  }
  const chosen = suites.filter((suite) =>
    named.length > 0 ? named.includes(suite.name) : !quick || suite.quick,
  );
  mkdirSync('reports', { recursive: true });
  const started = Date.now();
  const results = [];
  for (const stage of stagesOf(chosen)) {
    if (stage.length === 1) {
      results.push(await runSuite(stage[0], { quick, extra }));
      continue;
    }
    mkdirSync('reports/logs', { recursive: true });
    const log = (suite) => `reports/logs/${suite.name}.log`;
    results.push(
      ...(await Promise.all(
        stage.map((suite) => runSuite(suite, { quick, extra, log: log(suite) })),
      )),
    );
  }
  const total = (key) => results.reduce((sum, result) => sum + result[key], 0);
  // A suite that failed without a failed test (missing report, no test, a bad exit) counts once.
  const failed = total('failed') + results.filter((r) => suiteFailed(r) && r.failed === 0).length;
  const seconds = Math.round((Date.now() - started) / 1000);
  const summary = `${total('passed')} passed, ${failed} failed`;
  writeFileSync(
    'reports/suites.json',
    JSON.stringify(
      {
        quick,
        seconds,
        passed: total('passed'),
        failed,
        skipped: total('skipped'),
        summary,
        suites: results,
      },
      null,
      2,
    ) + '\n',
  );
  // The failed tests by name, next to the summary: a CI log is often read from its tail.
  const failures = results.flatMap((r) => r.failures.map((name) => `failed ${r.name}: ${name}`));
  if (failures.length > 0) {
    const shown = failures.slice(0, 40);
    const more =
      failures.length > shown.length ? [`... and ${failures.length - shown.length} more`] : [];
    process.stdout.write(`\n${[...shown, ...more].join('\n')}\n`);
  }
  process.stdout.write(`\n${results.map(formatLine).join('\n')}\n`);
  process.stdout.write(
    `all suites: ${Math.round(seconds / 60)} min, ${total('skipped')} skipped\n`,
  );
  process.stdout.write(`${summary}\n`);
  return results.some(suiteFailed) ? 1 : 0;
}

process.exitCode = await main();
