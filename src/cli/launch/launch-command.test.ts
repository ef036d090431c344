import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { modelRecordFixture } from '../../api/testing/model-record-fixture.js';
import { cliHarness } from '../testing/cli-harness.js';
import type { CliHarness } from '../testing/cli-harness.js';
import { launchCommand } from './launch-command.js';
import type { LaunchContext } from './launch-command.js';

interface Started {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
}

let harness: CliHarness;
let home: string;

beforeEach(async () => {
  harness = await cliHarness({
    records: [
      modelRecordFixture({
        id: 'tiny',
        gguf: { ...modelRecordFixture().gguf, contextLength: 65_536 },
      }),
    ],
  });
  home = await mkdtemp(join(tmpdir(), 'lmtab-launch-'));
});

afterEach(async () => {
  await harness.close();
  await rm(home, { recursive: true, force: true });
});

/** A launch context over the harness: files under `home`, the agent recorded instead of run. */
function launchContext(env: NodeJS.ProcessEnv = {}, exitCode = 0) {
  const started: Started[] = [];
  const base = harness.context();
  const context: LaunchContext = {
    ...base,
    home,
    env,
    lmtabHome: join(home, '.lmtab'),
    start: (command, args, startEnv) => {
      started.push({ command, args, env: startEnv });
      return Promise.resolve(exitCode);
    },
  };
  return { context, started, stderr: () => base.stderr.text, stdout: () => base.stdout.text };
}

describe('lmtab launch', () => {
  it('codex: loads the model with 32,768 tokens, writes a profile file of its own, and restores', async () => {
    const { context, started, stderr } = launchContext({}, 3);
    await mkdir(join(home, '.codex'));
    await writeFile(join(home, '.codex', 'config.toml'), 'model = "gpt-5"\n');
    const code = await launchCommand(context, 'codex', 'tiny', ['exec', 'Say hi']);
    expect(code).toBe(3);
    expect(harness.engine.loads).toEqual([
      { model: 'tiny', options: expect.objectContaining({ contextLength: 32_768 }) },
    ]);
    const profile = join(home, '.codex', 'lmtab.config.toml');
    expect(await readFile(profile, 'utf8')).toBe(
      [
        '# Written by `lmtab launch codex`; `lmtab launch --restore codex` removes it.',
        'model = "tiny"',
        'model_provider = "lmtab"',
        'model_context_window = 32768',
        '',
        '[model_providers.lmtab]',
        'name = "lmtab"',
        `base_url = "${harness.url.href}v1"`,
        'wire_api = "responses"',
        '',
      ].join('\n'),
    );
    expect(started).toEqual([
      { command: 'codex', args: ['--profile', 'lmtab', 'exec', 'Say hi'], env: {} },
    ]);
    expect(stderr()).toContain('Codex -> lmtab at http://127.0.0.1:');
    // The person's own config.toml is untouched.
    expect(await readFile(join(home, '.codex', 'config.toml'), 'utf8')).toBe('model = "gpt-5"\n');

    const restore = launchContext();
    expect(await launchCommand(restore.context, 'codex', undefined, [], { restore: true })).toBe(0);
    expect(restore.stderr()).toBe(`removed ${profile} (there was none before lmtab's)\n`);
    await expect(readFile(profile, 'utf8')).rejects.toThrow('ENOENT');
    const again = launchContext();
    await launchCommand(again.context, 'codex', undefined, [], { restore: true });
    expect(again.stderr()).toBe(
      'Nothing to restore for Codex: lmtab launch has not written its configuration since the last restore.\n',
    );
  });

  it('codex: names the key variable only where the relay needs a key', async () => {
    const { context } = launchContext({ LMTAB_API_KEY: 'sk-local', CODEX_HOME: join(home, 'cx') });
    await launchCommand(context, 'codex', 'tiny', []);
    expect(await readFile(join(home, 'cx', 'lmtab.config.toml'), 'utf8')).toMatch(
      /wire_api = "responses"\nenv_key = "LMTAB_API_KEY"\n$/,
    );
  });

  it('opencode: adds the provider to opencode.json, keeps the rest, and restores the exact text', async () => {
    const { context, started } = launchContext({ OPENCODE_CONFIG_CONTENT: '{"share":"disabled"}' });
    const path = join(home, '.config', 'opencode', 'opencode.json');
    await mkdir(join(home, '.config', 'opencode'), { recursive: true });
    const mine = '{ "model": "anthropic/x", "provider": { "other": { "name": "Other" } } }\n';
    await writeFile(path, mine);
    await launchCommand(context, 'opencode', 'tiny', ['run', 'Say hi'], { context: 8192 });
    const written = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    expect(written).toEqual({
      $schema: 'https://opencode.ai/config.json',
      model: 'anthropic/x',
      provider: {
        other: { name: 'Other' },
        lmtab: {
          npm: '@ai-sdk/openai-compatible',
          name: 'lmtab',
          options: { baseURL: `${harness.url.href}v1`, apiKey: 'lmtab' },
          models: {
            tiny: { name: 'tiny', tool_call: true, limit: { context: 8192, output: 2048 } },
          },
        },
      },
    });
    expect(started[0]?.args).toEqual(['run', 'Say hi']);
    expect(JSON.parse(started[0]?.env.OPENCODE_CONFIG_CONTENT ?? '')).toEqual({
      share: 'disabled',
      model: 'lmtab/tiny',
    });
    // A second launch writes again; the backup still holds the person's file.
    await launchCommand(launchContext().context, 'opencode', 'tiny', []);
    const restore = launchContext();
    await launchCommand(restore.context, 'opencode', undefined, [], { restore: true });
    expect(restore.stderr()).toBe(`restored ${path}\n`);
    expect(await readFile(path, 'utf8')).toBe(mine);
  });

  it('opencode: a configuration that is not plain JSON is left alone', async () => {
    const path = join(home, '.config', 'opencode', 'opencode.json');
    await mkdir(join(home, '.config', 'opencode'), { recursive: true });
    await writeFile(path, '{ // mine\n}\n');
    const { context, started } = launchContext();
    await expect(launchCommand(context, 'opencode', 'tiny', [])).rejects.toThrow(
      `Cannot add lmtab to ${path}: expected plain JSON`,
    );
    expect(started).toEqual([]);
    expect(await readFile(path, 'utf8')).toBe('{ // mine\n}\n');
  });

  it('claude: passes the relay, the key placeholder and the model in its environment, writes nothing', async () => {
    const { context, started } = launchContext({ ANTHROPIC_API_KEY: 'sk-ant-mine' });
    await launchCommand(context, 'claude', undefined, ['-p', 'Say hi']);
    expect(started).toHaveLength(1);
    const [{ command, args, env }] = started as [Started];
    expect(command).toBe('claude');
    expect(args).toEqual(['--model', 'tiny', '-p', 'Say hi']);
    expect(env).toMatchObject({
      ANTHROPIC_BASE_URL: harness.url.href.replace(/\/$/, ''),
      ANTHROPIC_AUTH_TOKEN: 'lmtab',
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_MODEL: 'tiny',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'tiny',
      CLAUDE_CODE_SUBAGENT_MODEL: 'tiny',
      CLAUDE_CODE_AUTO_COMPACT_WINDOW: '32768',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
    const restore = launchContext();
    await launchCommand(restore.context, 'claude', undefined, [], { restore: true });
    expect(restore.stderr()).toBe(
      'Nothing to restore for Claude Code: lmtab launch passes it its settings in its environment and writes no file.\n',
    );
  });

  it('--config prints the command instead of starting the agent', async () => {
    const { context, started, stdout } = launchContext();
    await launchCommand(context, 'claude', 'tiny', ['-p', "it's"], { config: true });
    expect(started).toEqual([]);
    const printed = stdout();
    expect(printed).toMatch(
      /^ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+ ANTHROPIC_AUTH_TOKEN=lmtab ANTHROPIC_API_KEY='' /,
    );
    expect(printed).toMatch(/ claude --model tiny -p 'it'\\''s'\n$/);
  });

  it('refuses a context beyond the training context, an unknown agent and a missing one', async () => {
    await expect(
      launchCommand(launchContext().context, 'codex', 'tiny', [], { context: 100_000 }),
    ).rejects.toThrow(
      "Invalid --context: expected at most 65,536 tokens (tiny's training context), received 100,000.",
    );
    await expect(launchCommand(launchContext().context, 'cursor', 'tiny', [])).rejects.toThrow(
      'Unknown agent "cursor": expected one of claude, codex, opencode.',
    );
    const missing = launchContext();
    missing.context.start = () =>
      Promise.reject(Object.assign(new Error('spawn claude ENOENT'), { code: 'ENOENT' }));
    await expect(launchCommand(missing.context, 'claude', 'tiny', [])).rejects.toThrow(
      'Claude Code is not installed: expected `claude` on PATH. Install it with: npm install -g @anthropic-ai/claude-code',
    );
  });
});
