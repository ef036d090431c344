import { expect, test } from '@playwright/test';
import { execFileSync, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Relay } from '../../src/relay/index.js';
import { agentAnswer, agentModelFile, ensureAgentFixture } from '../support/agent-fixture.js';
import { machineCacheDir } from '../support/machine-cache.mjs';
import { testPorts } from '../support/test-ports.js';
import { fixtureDir } from './support/paths.js';
import { startRecordingProxy, type RecordingProxy } from './support/recording-proxy.js';
import { openEngineTab, startRelay, type EngineTab } from './support/relay.js';

// The pinned installs of tests/support/ensure-agents.mjs.
const agents = machineCacheDir('agents');
const bin = (name: string) => join(agents, name, 'node_modules/.bin', name);
const model = agentModelFile.replace(/\.gguf$/, '');
const prompt = 'Say hi';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end (stdin closed), failing the test past `timeoutMs`. */
function run(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number },
): Promise<Run> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} ran past the limit\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 300_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test.describe
  .serial('real agents against the relay: Claude Code, Codex, opencode, the Agents SDK', () => {
  // Claude Code's first request alone is about 9,500 tokens of prompt on two cores.
  test.describe.configure({ timeout: 600_000 });
  let relay: Relay;
  let tab: EngineTab;
  let proxy: RecordingProxy;
  let root: string;
  let work: string;

  /** An environment with no way out: a throwaway home, every other host refused by the proxy. */
  const offline = (home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local/state'),
    HTTP_PROXY: proxy.url,
    HTTPS_PROXY: proxy.url,
    http_proxy: proxy.url,
    https_proxy: proxy.url,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    TERM: 'dumb',
    NO_COLOR: '1',
    ...extra,
  });
  const claudeOffline = {
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
  const opencodeOffline = {
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  };
  /** The person's own Codex settings in a test home: no update check, plugin sync or analytics. */
  const codexHome = async (home: string) => {
    await mkdir(join(home, '.codex'), { recursive: true });
    await writeFile(
      join(home, '.codex', 'config.toml'),
      'check_for_update_on_startup = false\n\n[features]\nplugins = false\n\n[analytics]\nenabled = false\n',
    );
  };
  /**
   * opencode's config folder in a test home, holding the plugin package opencode installs into it
   * (with its lockfile, opencode takes it as installed rather than asking the registry).
   */
  const opencodeHome = async (home: string) => {
    const dir = join(home, '.config', 'opencode');
    const installed = join(agents, 'opencode-config');
    await mkdir(dir, { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) {
      await copyFile(join(installed, file), join(dir, file));
    }
    await symlink(join(installed, 'node_modules'), join(dir, 'node_modules'));
    return join(dir, 'opencode.json');
  };
  const posts = (path: string) =>
    proxy.requests.filter((r) => r.method === 'POST' && r.path.startsWith(path));

  test.beforeAll(async ({ browser }) => {
    // The first run downloads about 1 GB of agents (native binaries) from the npm registry.
    test.setTimeout(900_000);
    execFileSync(process.execPath, ['tests/support/ensure-agents.mjs'], { stdio: 'inherit' });
    await ensureAgentFixture(fixtureDir);
    relay = await startRelay(testPorts.relayAgents);
    tab = await openEngineTab(browser, relay, [{ file: agentModelFile }]);
    proxy = await startRecordingProxy(testPorts.agentsProxy, relay.url);
    root = await mkdtemp(join(tmpdir(), 'lmtab-agents-'));
    work = join(root, 'work');
    await mkdir(work);
  });

  test.afterAll(async () => {
    await proxy?.close();
    await tab?.context.close();
    await relay?.close();
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  test.beforeEach(() => proxy.clear());

  test.afterEach(() => {
    // Offline: nothing reached for a host besides lmtab.
    expect(proxy.outbound).toEqual([]);
  });

  const claudeEnv = () =>
    offline(join(root, 'claude'), {
      ...claudeOffline,
      ANTHROPIC_BASE_URL: proxy.url,
      ANTHROPIC_AUTH_TOKEN: 'lmtab',
    });

  test('Claude Code: claude -p with its default tools answers as text', async () => {
    const result = await run(bin('claude'), ['-p', prompt, '--model', model], {
      env: claudeEnv(),
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${agentAnswer}\n`);
    const messages = posts('/v1/messages');
    expect(messages.length).toBeGreaterThanOrEqual(1);
    expect(messages.map((r) => r.status)).toEqual(messages.map(() => 200));
    const body = messages[0]!.body as { stream: boolean; tools: { name: string }[] };
    expect(body.stream).toBe(true);
    expect(body.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['Bash', 'Read', 'Edit']));
  });

  test('Claude Code: claude -p --output-format stream-json reports the turn and its result', async () => {
    const result = await run(
      bin('claude'),
      ['-p', prompt, '--model', model, '--output-format', 'stream-json', '--verbose'],
      { env: claudeEnv(), cwd: work },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', model });
    expect(lines[0]!.tools).toEqual(expect.arrayContaining(['Bash', 'Read']));
    expect(lines.filter((l) => l.type === 'assistant')).toEqual([
      expect.objectContaining({
        message: expect.objectContaining({ content: [{ type: 'text', text: agentAnswer }] }),
      }),
    ]);
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: agentAnswer,
    });
    expect(posts('/v1/messages').length).toBeGreaterThanOrEqual(1);
  });

  test('Codex: codex exec on the Responses API', async () => {
    const home = join(root, 'codex');
    await codexHome(home);
    await writeFile(
      join(home, '.codex', 'config.toml'),
      [
        `model = "${model}"`,
        'model_provider = "lmtab"',
        (await readFile(join(home, '.codex', 'config.toml'), 'utf8')).trim(),
        '',
        '[model_providers.lmtab]',
        'name = "lmtab"',
        `base_url = "${proxy.url}/v1"`,
        'wire_api = "responses"',
        '',
      ].join('\n'),
    );
    const result = await run(bin('codex'), ['exec', '--skip-git-repo-check', prompt], {
      env: offline(home),
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${agentAnswer}\n`);
    const responses = posts('/v1/responses');
    expect(responses.map((r) => r.status)).toEqual([200]);
    const body = responses[0]!.body as { stream: boolean; tools: { type: string }[] };
    expect(body.stream).toBe(true);
    expect(body.tools.length).toBeGreaterThan(0);
  });

  test('opencode: opencode run with its default tools on chat completions', async () => {
    const home = join(root, 'opencode');
    await writeFile(
      await opencodeHome(home),
      JSON.stringify({
        $schema: 'https://opencode.ai/config.json',
        model: `lmtab/${model}`,
        autoupdate: false,
        share: 'disabled',
        provider: {
          lmtab: {
            npm: '@ai-sdk/openai-compatible',
            name: 'lmtab',
            options: { baseURL: `${proxy.url}/v1`, apiKey: 'lmtab' },
            models: { [model]: { name: model, limit: { context: 32_768, output: 4096 } } },
          },
        },
      }),
    );
    const result = await run(bin('opencode'), ['run', prompt], {
      env: offline(home, opencodeOffline),
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(agentAnswer);
    const chats = posts('/v1/chat/completions');
    expect(chats.length).toBeGreaterThanOrEqual(1);
    expect(chats.map((r) => r.status)).toEqual(chats.map(() => 200));
    const tools = chats.flatMap((r) => (r.body as { tools?: unknown[] }).tools ?? []);
    expect(tools.length).toBeGreaterThan(0);
  });

  test('the Agents SDK: both model classes, streamed and not, call a tool and finish', async () => {
    const result = await run(process.execPath, ['tests/support/agents-sdk-run.mjs'], {
      env: offline(join(root, 'sdk'), {
        AGENTS_SDK_DIR: join(agents, 'sdk'),
        LMTAB_BASE_URL: `${proxy.url}/v1`,
        LMTAB_MODEL: model,
      }),
      cwd: process.cwd(),
    });
    expect(result.code, result.stderr).toBe(0);
    const runs = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(runs.map((r) => [r.model, r.stream])).toEqual([
      ['responses', false],
      ['responses', true],
      ['chat', false],
      ['chat', true],
    ]);
    for (const one of runs) {
      // The forced call went through the tool, whose answer the model read before finishing.
      expect(one.calls).toHaveLength(1);
      expect(one.items).toEqual(['tool_call_item', 'tool_call_output_item', 'message_output_item']);
      expect(one.finalOutput).toBe(agentAnswer);
    }
    expect(runs.filter((r) => r.stream === true).map((r) => r.events)).toEqual([
      expect.arrayContaining(['raw_model_stream_event', 'run_item_stream_event']),
      expect.arrayContaining(['raw_model_stream_event', 'run_item_stream_event']),
    ]);
    // Two turns per run: the forced call, then the answer after the tool's output.
    expect(posts('/v1/responses').map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(posts('/v1/chat/completions').map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const forced = posts('/v1/responses')[0]!.body as { tool_choice: unknown };
    expect(forced.tool_choice).toEqual({ type: 'function', name: 'get_weather' });
  });

  test.describe('lmtab launch', () => {
    /** `lmtab launch ...` in `home`, against the relay behind the proxy; the agents on PATH. */
    const launch = (home: string, args: string[], extra: NodeJS.ProcessEnv = {}) =>
      run(process.execPath, [join(process.cwd(), 'bin/lmtab.js'), 'launch', ...args], {
        env: offline(home, {
          PATH: [
            join(agents, 'claude/node_modules/.bin'),
            join(agents, 'codex/node_modules/.bin'),
            join(agents, 'opencode/node_modules/.bin'),
            process.env.PATH,
          ].join(':'),
          LMTAB_HOME: join(home, '.lmtab'),
          LMTAB_HOST: proxy.url,
          ...extra,
        }),
        cwd: work,
      });

    test('launch claude runs Claude Code with the prompt passed through', async () => {
      const result = await launch(join(root, 'claude'), ['claude', model, '--', '-p', prompt], {
        ...claudeOffline,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${agentAnswer}\n`);
      expect(result.stderr).toContain(
        `Claude Code -> lmtab at ${proxy.url}, model ${model} (32,768 tokens of context)`,
      );
      expect(posts('/v1/messages').length).toBeGreaterThanOrEqual(1);
      const loaded = (await (await fetch(`${relay.url}/api/ps`)).json()) as {
        models: { name: string; context_length: number }[];
      };
      expect(loaded.models).toEqual([
        expect.objectContaining({ name: model, context_length: 32_768 }),
      ]);
    });

    test('launch codex writes its profile, runs codex exec, and --restore removes it', async () => {
      const home = join(root, 'codex-launch');
      await codexHome(home);
      const mine = await readFile(join(home, '.codex', 'config.toml'), 'utf8');
      const result = await launch(home, [
        'codex',
        model,
        '--',
        'exec',
        '--skip-git-repo-check',
        prompt,
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${agentAnswer}\n`);
      expect(posts('/v1/responses').map((r) => r.status)).toEqual([200]);
      const profile = join(home, '.codex', 'lmtab.config.toml');
      expect(await readFile(profile, 'utf8')).toContain(`base_url = "${proxy.url}/v1"`);
      const restored = await launch(home, ['--restore', 'codex']);
      expect(restored.code, restored.stderr).toBe(0);
      await expect(readFile(profile, 'utf8')).rejects.toThrow('ENOENT');
      expect(await readFile(join(home, '.codex', 'config.toml'), 'utf8')).toBe(mine);
    });

    test('launch opencode adds its provider, runs opencode run, and --restore puts the file back', async () => {
      const home = join(root, 'opencode-launch');
      const path = await opencodeHome(home);
      const mine = `${JSON.stringify({ autoupdate: false, share: 'disabled', model: 'anthropic/claude-sonnet-4-5' }, null, 2)}\n`;
      await writeFile(path, mine);
      const result = await launch(home, ['opencode', model, '--', 'run', prompt], opencodeOffline);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe(agentAnswer);
      expect(posts('/v1/chat/completions').length).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({
        model: 'anthropic/claude-sonnet-4-5',
        provider: { lmtab: { options: { baseURL: `${proxy.url}/v1` } } },
      });
      const restored = await launch(home, ['--restore', 'opencode']);
      expect(restored.code, restored.stderr).toBe(0);
      expect(await readFile(path, 'utf8')).toBe(mine);
    });
  });
});
