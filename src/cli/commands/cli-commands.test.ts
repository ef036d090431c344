import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeGguf } from '../../../tests/support/gguf-writer.js';
import { lfm2VlProjector } from '../../../tests/support/lfm2-fixtures.js';
import { modelRecordFixture } from '../../api/testing/model-record-fixture.js';
import { createCommand } from './create-command.js';
import { listCommand } from './list-command.js';
import { rmCommand } from './rm-command.js';
import { runCommand } from './run-command.js';
import { showCommand } from './show-command.js';
import { cliHarness } from '../testing/cli-harness.js';
import type { CliHarness } from '../testing/cli-harness.js';
import { issueModelfile } from '../../../tests/support/issue-modelfile.js';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

let harness: CliHarness;
let dir: string;

beforeEach(async () => {
  const vision = modelRecordFixture({
    id: 'lfm2-vl',
    projector: { fileId: 'p', name: 'p.gguf', size: 1, chunkSize: 1, chunks: 1, complete: true },
  });
  harness = await cliHarness({ records: [modelRecordFixture(), vision] });
  dir = await mkdtemp(join(tmpdir(), 'lmtab-cli-'));
  await writeFile(join(dir, 'tiny.gguf'), 'GGUF tiny model bytes');
  await writeFile(join(dir, 'Modelfile'), issueModelfile);
  await writeFile(join(dir, 'cat.png'), png);
});

afterEach(async () => {
  await harness.close();
  await rm(dir, { recursive: true, force: true });
});

async function create(): Promise<void> {
  const context = harness.context({ cwd: dir });
  await createCommand(context, 'tiny-chat', { file: 'Modelfile' });
  expect(context.stderr.text).toContain('success\n');
}

describe('the CLI against the API router', () => {
  it('creates a model from the issue’s Modelfile, uploading FROM ./tiny.gguf', async () => {
    await create();
    const record = await harness.store.get('tiny-chat');
    expect(record?.customization?.parameters).toEqual({
      temperature: 0.3,
      top_k: 50,
      repeat_penalty: 1.05,
      stop: ['<|im_end|>', '<|endoftext|>'],
    });
    // A second create finds the file already stored and sends no bytes.
    const again = harness.context({ cwd: dir });
    await createCommand(again, 'tiny-chat-2', { file: 'Modelfile' });
    expect(again.stderr.text).toContain('using existing file sha256:');
  });

  it('answers one prompt through the template, and reads piped stdin before it', async () => {
    await create();
    const context = harness.context({ input: 'Context from a file.\n' });
    await runCommand(context, 'tiny-chat', ['Summarize', 'it.'], {});
    expect(context.stdout.text).toBe('Hello, world\n');
    expect(harness.engine.requests.at(-1)?.input).toEqual({
      kind: 'prompt',
      prompt:
        '<|startoftext|><|im_start|>system\n<|im_end|>\n<|im_start|>user\n' +
        'Context from a file. Summarize it.<|im_end|>\n<|im_start|>assistant\n',
    });
    expect(harness.engine.requests.at(-1)?.sampling).toMatchObject({ temperature: 0.3, topK: 50 });
  });

  it('chats through a scripted REPL: /set, """, /show, /image, /clear, /bye', async () => {
    const context = harness.context({
      cwd: dir,
      input: [
        '/set system You are terse.',
        '/set parameter temperature 0.9',
        'Hi',
        '"""Two',
        'lines"""',
        '/show',
        '/image ./cat.png What is this?',
        '/set parameter top_k many',
        '/clear',
        '/bye',
        'never sent',
      ].join('\n'),
    });
    await runCommand(context, 'lfm2-vl', [], { interactive: true });
    expect(context.stdout.text).toContain(
      "Set system message.\nSet parameter 'temperature' to '0.9'\nHello, world\nHello, world\n",
    );
    expect(context.stdout.text).toContain('  Capabilities\n    completion\n    vision\n');
    expect(context.stdout.text).toContain('Cleared session context\n');
    expect(context.stderr.text).toBe(
      'Error (invalid_request): parameter top_k must be an integer, got "many"\n',
    );
    const requests = harness.engine.requests;
    expect(requests).toHaveLength(3);
    expect(requests[1]?.input).toEqual({
      kind: 'chat',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are terse.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello, world' }] },
        { role: 'user', content: [{ type: 'text', text: 'Two\nlines' }] },
      ],
    });
    expect(requests[1]?.sampling.temperature).toBe(0.9);
    const last = requests[2]?.input;
    expect(last?.kind === 'chat' ? last.messages.at(-1)?.content : undefined).toEqual([
      { type: 'image', data: new Uint8Array(png), mimeType: 'image/png' },
      { type: 'text', text: 'What is this?' },
    ]);
  });

  it('sends --format, --no-think and /set format, /set think to the engine', async () => {
    await writeFile(join(dir, 'schema.json'), '{"type": "object", "required": ["n"]}');
    const context = harness.context({
      cwd: dir,
      input: [
        'Hi',
        '/set format @schema.json',
        'Again',
        '/set noformat',
        '/set think',
        'Free',
      ].join('\n'),
    });
    await runCommand(context, 'lfm2-350m', [], { interactive: true, format: 'json', think: false });
    expect(context.stderr.text).toBe('');
    expect(context.stdout.text).toContain(
      "Set format to a JSON Schema.\nHello, world\nDisabled format.\nSet 'think' mode.\n",
    );
    expect(harness.engine.requests.map((r) => [r.format, r.thinking])).toEqual([
      [{ type: 'json' }, false],
      [{ type: 'json', schema: { type: 'object', required: ['n'] } }, false],
      [undefined, true],
    ]);
    await expect(
      runCommand(harness.context({ cwd: dir }), 'lfm2-350m', ['Hi'], { format: '@missing.json' }),
    ).rejects.toThrow(`--format: cannot read the schema file ${join(dir, 'missing.json')}`);
  });

  it('attaches an image path written in a message for a vision model', async () => {
    const context = harness.context({ cwd: dir });
    await runCommand(context, 'lfm2-vl', ['Describe', './cat.png', 'briefly'], {});
    expect(context.stderr.text).toBe("Added image './cat.png'\n");
    const input = harness.engine.requests[0]?.input;
    expect(input?.kind === 'chat' ? input.messages[0]?.content : undefined).toEqual([
      { type: 'image', data: new Uint8Array(png), mimeType: 'image/png' },
      { type: 'text', text: 'Describe briefly' },
    ]);
  });

  it('runs a local .gguf file, named after it', async () => {
    const context = harness.context({ cwd: dir });
    await runCommand(context, './tiny.gguf', ['Hi'], {});
    expect(context.stdout.text).toBe('Hello, world\n');
    expect(harness.engine.requests[0]?.model).toBe('tiny');
    expect((await harness.store.get('tiny'))?.customization).toBeUndefined();
  });

  it('runs a local vision model with the projector beside it', async () => {
    await writeFile(join(dir, 'tiny-vl.gguf'), 'GGUF tiny vision model');
    await writeFile(join(dir, 'mmproj-tiny-vl.gguf'), encodeGguf(lfm2VlProjector()));
    const context = harness.context({ cwd: dir });
    await runCommand(context, `${dir}/tiny-vl.gguf`, ['What', 'is', './cat.png?'], {});
    expect(context.stderr.text).toContain('using vision projector mmproj-tiny-vl.gguf\n');
    expect(context.stderr.text).toContain("Added image './cat.png'\n");
    expect((await harness.store.get('tiny-vl'))?.projector?.name).toBe('mmproj-tiny-vl.gguf');
    const again = harness.context({ cwd: dir });
    await runCommand(again, './tiny-vl.gguf', ['Hi'], {});
    expect(again.stderr.text).not.toContain('writing model');
  });

  it('lists, shows and removes models', async () => {
    await create();
    const list = harness.context();
    await listCommand(list);
    expect(list.stdout.text.split('\n')[0]).toMatch(/^NAME\s+ID\s+SIZE\s+MODIFIED$/);
    expect(list.stdout.text).toMatch(/\ntiny-chat\s+[0-9a-f]{12}\s+21 B\s+2 minutes ago\n/);

    const show = harness.context();
    await showCommand(show, 'tiny-chat', {});
    expect(show.stdout.text).toMatchInlineSnapshot(`
      "  Model
          architecture        lfm2
          parameters          354M
          context length      128000
          embedding length    1024
          quantization        Q4_K_M

        Capabilities
          completion

        Template
          <|startoftext|><|im_start|>system
          {{ .System }}<|im_end|>
          <|im_start|>user
          {{ .Prompt }}<|im_end|>
          <|im_start|>assistant

        Parameters
          temperature       0.3
          top_k             50
          repeat_penalty    1.05
          stop              "<|im_end|>"
          stop              "<|endoftext|>"

      "
    `);
    const modelfileOut = harness.context();
    await showCommand(modelfileOut, 'tiny-chat', { modelfile: true });
    expect(modelfileOut.stdout.text).toContain('PARAMETER stop <|im_end|>\n');

    const rm = harness.context();
    await rmCommand(rm, ['tiny-chat']);
    expect(rm.stdout.text).toBe("deleted 'tiny-chat'\n");
    expect(await harness.store.get('tiny-chat')).toBeUndefined();
  });

  it('fails clearly for an unknown model, an unreadable file and a bad Modelfile', async () => {
    await expect(runCommand(harness.context(), 'nope', ['Hi'], {})).rejects.toThrow(
      'Model "nope" not found: expected one of the stored models (lfm2-350m, lfm2-vl).',
    );
    await expect(
      runCommand(harness.context({ cwd: dir }), './missing.gguf', [], {}),
    ).rejects.toThrow(/^Cannot read \.\/missing\.gguf: no such file/);
    await writeFile(join(dir, 'Bad'), 'FROM ./tiny.gguf\nPARAMETER warmth 1\n');
    await expect(
      createCommand(harness.context({ cwd: dir }), 'bad', { file: 'Bad' }),
    ).rejects.toThrow(/^Modelfile line 2: unknown parameter "warmth"/);
    await writeFile(join(dir, 'Gone'), 'FROM ./gone.gguf\n');
    await expect(
      createCommand(harness.context({ cwd: dir }), 'gone', { file: 'Gone' }),
    ).rejects.toThrow(/^Modelfile line 1: FROM \.\/gone\.gguf: no such file/);
  });
});
