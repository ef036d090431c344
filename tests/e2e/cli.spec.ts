import { expect, test } from '@playwright/test';
import Ajv from 'ajv';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { FakeHub } from '../support/fake-hub.js';
import { ensureFixtures } from '../support/lfm2-fixtures.js';
import { pngDataUri } from './support/app.js';
import { repos, startE2eHub } from './support/hub.js';
import { fixtureDir } from './support/paths.js';
import { openPage, startRelay } from './support/relay.js';
import { issueModelfile } from '../support/issue-modelfile.js';
import { testPorts } from '../support/test-ports.js';

/** The relay the CLI starts by itself; the unused port is for "no relay here". */
const port = testPorts.cliRelay;
const unusedPort = testPorts.cliNoRelay;
const browser = process.env.LMTAB_BROWSER ?? '/usr/bin/chromium';

const visionModel = `hf.co/${repos.vision}:Q4_K_M`;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

let home: string;
let work: string;
let hub: FakeHub;

/** The CLI's environment: its home (and so its relay's profile) inside the test's folder. */
function cliEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOME: home,
    LMTAB_HOME: join(home, '.lmtab'),
    LMTAB_HOST: `127.0.0.1:${port}`,
  };
}

/** Runs the built `lmtab` with `args` (stdin from `input`) against the test relay. */
function lmtab(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [join(process.cwd(), 'bin/lmtab.js'), ...args], {
    cwd: work,
    env: { ...cliEnv(), ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  const info = test.info();
  home = info.outputPath('home');
  work = info.outputPath('work');
  await mkdir(work, { recursive: true });
  const fixtures = await ensureFixtures(fixtureDir);
  await copyFile(fixtures.lfm2, join(work, 'tiny.gguf'));
  await writeFile(join(work, 'Modelfile'), issueModelfile);
  hub = await startE2eHub();

  // The headless engine's profile (where the CLI's relay keeps it) learns the fake hub, and a PNG
  // is drawn for /image, on the origin the relay will have.
  const seed = await startRelay(port);
  const context = await chromium.launchPersistentContext(join(home, '.lmtab', 'browser'), {
    executablePath: browser,
    args: ['--no-sandbox'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await openPage(page, `${seed.url}/`);
  await page.evaluate(
    (endpoint) => localStorage.setItem('lmtab.hub-settings', JSON.stringify({ endpoint })),
    hub.url,
  );
  const png = await pngDataUri(page);
  await writeFile(join(work, 'cat.png'), Buffer.from(png.split(',')[1] ?? '', 'base64'));
  await context.close();
  await seed.close();
});

test.afterAll(async () => {
  const pid = Number(await readFile(join(home, '.lmtab', 'relay.pid'), 'utf8').catch(() => ''));
  if (pid > 0) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  await hub.close();
});

test('without a relay or a browser, the CLI says what to install', async () => {
  const result = await lmtab(['list'], {
    env: { LMTAB_HOST: `127.0.0.1:${unusedPort}`, LMTAB_BROWSER: '/nonexistent/chrome' },
  });
  expect(result.code).toBe(34);
  expect(result.stdout).toBe('');
  expect(result.stderr).toBe(
    `Error (relay_unreachable): No lmtab relay answers at http://127.0.0.1:${unusedPort}, and none can be started here: ` +
      'LMTAB_BROWSER is "/nonexistent/chrome", which does not exist: expected the path of a Chrome ' +
      'or Chromium executable. Or open the lmtab app in a browser and run "lmtab serve".\n',
  );
});

test('create starts a relay with a headless engine and makes the model from the Modelfile', async () => {
  const result = await lmtab(['create', 'tiny-chat', '-f', 'Modelfile']);
  expect(result.stderr).toContain(
    `Starting the lmtab relay with a headless engine at http://127.0.0.1:${port}`,
  );
  expect(result.stderr).toContain('gathering model components\n');
  expect(result.stderr).toMatch(/copying file sha256:[0-9a-f]{64}: 100%/);
  expect(result.stderr).toMatch(/\nsuccess\n$/);
  expect(result.code).toBe(0);
  expect(await readFile(join(home, '.lmtab', 'relay.log'), 'utf8')).toContain('serving the app');
  // It holds the link with the engine secret: readable by its owner only.
  expect((await stat(join(home, '.lmtab', 'relay.log'))).mode & 0o777).toBe(0o600);
});

test('run answers one prompt through the template and exits 0; piped stdin goes first', async () => {
  // Random weights rarely stop by themselves: a model FROM tiny-chat (inheriting its TEMPLATE
  // and PARAMETERs) caps the answer.
  await writeFile(join(work, 'Short'), 'FROM tiny-chat\nPARAMETER num_predict 12\n');
  const short = await lmtab(['create', 'tiny-short', '-f', 'Short']);
  expect(short.stderr).toContain('using base model tiny-chat\n');
  expect(short.code).toBe(0);
  const inherited = await lmtab(['show', 'tiny-short', '--parameters']);
  expect(inherited.stdout).toMatch(/^temperature +0\.3\n(?:.*\n)*num_predict +12\n/);

  const once = await lmtab(['run', 'tiny-short', 'Why is the sky blue?', '--verbose']);
  expect(once.code).toBe(0);
  expect(once.stdout.endsWith('\n')).toBe(true);
  expect(once.stderr).toMatch(/eval count:\s+(?:[1-9]|1[0-2]) token\(s\)/);
  const piped = await lmtab(['run', 'tiny-short', 'Summarize it.'], { input: 'Some text.\n' });
  expect(piped.code).toBe(0);
  expect(piped.stderr).toBe('');
});

test('run ./tiny.gguf stores the file under its name and answers', async () => {
  const result = await lmtab(['run', './tiny.gguf', '-i'], {
    input: '/set parameter num_predict 6\nHi\n',
  });
  expect(result.stdout).toMatch(/^Set parameter 'num_predict' to '6'\n[\s\S]*\n$/);
  expect(result.code).toBe(0);
  const list = await lmtab(['list']);
  expect(list.stdout).toMatch(/\ntiny\s+[0-9a-f]{12}\s+\d+ KB\s+/);
});

test('run --format answers in JSON: json, a schema file, and /set format in the chat', async () => {
  const schema = {
    type: 'object',
    properties: {
      color: { enum: ['red', 'green', 'blue'] },
      ok: { type: 'boolean' },
      name: { type: 'string', maxLength: 12 },
    },
    required: ['color', 'ok', 'name'],
    additionalProperties: false,
  };
  const validate = new Ajv().compile(schema);
  await writeFile(join(work, 'flag.json'), JSON.stringify(schema));
  const once = await lmtab(['run', 'tiny', '--format', '@flag.json', 'Describe a flag']);
  expect(once.stderr).toBe('');
  expect(once.code).toBe(0);
  const value: unknown = JSON.parse(once.stdout);
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);

  const json = await lmtab(['run', 'tiny', '--format', 'json', 'Any JSON, please']);
  expect(json.code).toBe(0);
  expect(() => JSON.parse(json.stdout)).not.toThrow();

  const chat = await lmtab(['run', 'tiny', '-i'], {
    input: [
      `/set format ${JSON.stringify(schema)}`,
      'A flag?',
      '/show parameters',
      '/set noformat',
      '/bye',
    ].join('\n'),
  });
  expect(chat.code).toBe(0);
  const set = 'Set format to a JSON Schema.\n';
  const shown = `User defined parameters:\nformat    ${JSON.stringify(schema)}\n`;
  expect(chat.stdout.startsWith(set)).toBe(true);
  expect(chat.stdout).toContain(shown);
  // The answer (JSON may hold line breaks) lies between the two.
  const answer = chat.stdout.slice(set.length, chat.stdout.indexOf(shown));
  expect(validate(JSON.parse(answer)), JSON.stringify(validate.errors)).toBe(true);
  expect(chat.stdout).toContain('Disabled format.\n');

  const bad = await lmtab(['run', 'tiny', '--format', 'yaml', 'Hi']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toBe(
    `Error (invalid_request): --format: expected json, a JSON Schema object such as '{"type":"object"}', or @schema.json; got "yaml".\n`,
  );
});

test('pull shows progress, then a scripted chat sends /image and ends with /bye', async () => {
  const pull = await lmtab(['pull', visionModel]);
  expect(pull.stderr).toContain('pulling manifest\n');
  expect(pull.stderr).toMatch(/pulling [0-9a-f]{12}: 100% ▕█+▏/);
  expect(pull.stderr).toMatch(/\nsuccess\n$/);
  expect(pull.code).toBe(0);

  const chat = await lmtab(['run', visionModel, '--interactive'], {
    input: [
      '/set system You describe images.',
      '/set parameter num_predict 8',
      '/image ./cat.png What is in this picture?',
      '"""Now in',
      'two lines."""',
      '/show',
      '/bye',
      'never sent',
    ].join('\n'),
  });
  expect(chat.stderr).toBe('');
  expect(chat.code).toBe(0);
  expect(chat.stdout).toContain("Set system message.\nSet parameter 'num_predict' to '8'\n");
  expect(chat.stdout).toContain('  Capabilities\n    completion\n    vision\n');

  const text = await lmtab(['run', 'tiny-chat', '-i'], {
    input: '/image ./cat.png What is this?\n/bye\n',
  });
  expect(text.code).toBe(0);
  expect(text.stderr).toMatch(/^Error \(invalid_request\): .*tiny-chat.*image/);
});

test('Ctrl+C stops an answer and the chat goes on; /bye ends it', async () => {
  const child = spawn(
    process.execPath,
    [join(process.cwd(), 'bin/lmtab.js'), 'run', 'tiny-short', '-i'],
    {
      cwd: work,
      env: cliEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  // Greedy decoding of the random fixture never reaches end-of-sequence: the answer is still
  // streaming when Ctrl+C comes.
  child.stdin.write(
    '/set parameter temperature 0\n/set parameter num_predict 3000\nTell me a long story.\n',
  );
  const answered = () => stdout.split("'3000'\n")[1]?.length ?? 0;
  await expect.poll(answered, { timeout: 60_000 }).toBeGreaterThan(20);
  child.kill('SIGINT');
  const stopped = stdout.length;
  child.stdin.end('/set parameter num_predict 3\nHi\n/bye\n');
  expect(await exited).toBe(0);
  expect(stdout.slice(stopped)).toMatch(/\n[\s\S]*Set parameter 'num_predict' to '3'\n/);
});

test('list, show, cp, ps, stop and rm work as in Ollama', async () => {
  const list = await lmtab(['list']);
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(/^NAME\s+ID\s+SIZE\s+MODIFIED\n/);
  expect(list.stdout).toMatch(/\ntiny-chat\s+[0-9a-f]{12}\s+\d+ KB\s+(?:\d+|About a|Less than a)/);

  const show = await lmtab(['show', 'tiny-chat']);
  expect(show.stdout).toMatch(/^ {2}Model\n {4}architecture {8}lfm2\n/);
  expect(show.stdout).toMatch(/ {4}context length {6}4096\n/);
  expect(show.stdout).toContain('  Template\n    <|startoftext|><|im_start|>system\n');
  expect(show.stdout).toMatch(/ {2}Parameters\n {4}temperature +0\.3\n/);
  const modelfileOut = await lmtab(['show', 'tiny-chat', '--modelfile']);
  expect(modelfileOut.stdout).toContain(
    'PARAMETER stop <|im_end|>\nPARAMETER stop <|endoftext|>\n',
  );

  expect((await lmtab(['cp', 'tiny-short', 'tiny-copy'])).stdout).toBe(
    "copied 'tiny-short' to 'tiny-copy'\n",
  );
  await lmtab(['run', 'tiny-copy', 'Hi']);
  const ps = await lmtab(['ps']);
  expect(ps.stdout).toMatch(
    /\ntiny-copy\s+[0-9a-f]{12}\s+.*100% CPU\s+\d+\s+\d+ minutes from now\n/,
  );
  expect((await lmtab(['stop', 'tiny-copy'])).code).toBe(0);
  expect((await lmtab(['ps'])).stdout).not.toContain('tiny-copy');

  const rm = await lmtab(['rm', 'tiny-chat', 'tiny-copy']);
  expect(rm.stdout).toBe("deleted 'tiny-chat'\ndeleted 'tiny-copy'\n");
  // tiny-short keeps working: it has its own record of the shared file and settings.
  expect((await lmtab(['run', 'tiny-short', 'Hi'])).code).toBe(0);
  expect((await lmtab(['list'])).stdout).not.toMatch(/tiny-chat|tiny-copy/);
});

test('errors are one clear line and a non-zero exit', async () => {
  const unknown = await lmtab(['run', 'tiny-chat', 'Hi']);
  expect(unknown.code).toBe(20);
  expect(unknown.stderr).toMatch(
    /^Error \(model_not_found\): Model "tiny-chat" not found: expected one of the stored models \(/,
  );

  const unreadable = await lmtab(['run', './missing.gguf']);
  expect(unreadable.code).toBe(2);
  expect(unreadable.stderr).toBe(
    `Error (invalid_request): Cannot read ./missing.gguf: no such file (looked for ${join(work, 'missing.gguf')}).\n`,
  );

  await writeFile(join(work, 'Bad'), 'FROM ./tiny.gguf\nPARAMETER temperature hot\n');
  const bad = await lmtab(['create', 'bad', '-f', 'Bad']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toBe(
    'Error (invalid_request): Modelfile line 2: PARAMETER temperature must be a number, got "hot"\n',
  );
  const missing = await lmtab(['create', 'bad', '-f', 'Nope']);
  expect(missing.stderr).toBe(
    'Error (invalid_request): Cannot read the Modelfile Nope: no such file.\n',
  );

  // A create that fails after uploading its file (the relay refuses the name) lists nothing.
  await copyFile(join(fixtureDir, 'tiny-lfm2moe.gguf'), join(work, 'moe.gguf'));
  await writeFile(join(work, 'Upload'), 'FROM ./moe.gguf\n');
  const refused = await lmtab(['create', '../../etc/passwd', '-f', 'Upload']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('Invalid `model`: expected a model name');
  const listed = await lmtab(['list']);
  expect(listed.code).toBe(0);
  expect(listed.stdout).not.toContain('sha256');
  expect(listed.stdout).not.toContain('passwd');
});
