import { statSync } from 'node:fs';
import { LmtabError } from '../../errors/index.js';
import { createChatSession } from '../repl/chat-session.js';
import type { CliContext } from '../cli-context.js';
import { localModelPath, modelNameFromFile } from '../models/local-model-path.js';
import { parseFormat } from '../repl/parse-format.js';
import { createProgressDisplay } from '../format/progress-display.js';
import type { ProgressDisplay } from '../format/progress-display.js';
import { ensureModel } from '../models/pull-model.js';
import type { RelayClient } from '../relay-client.js';
import { runRepl } from '../repl/repl.js';
import { takeImagePaths } from '../repl/take-image-paths.js';
import { uploadLocalModel } from '../models/upload-model-file.js';

/** Options of {@link runCommand}. */
export interface RunOptions {
  /** Chat line by line even when stdin is not a terminal (a scripted REPL); default false. */
  interactive?: boolean;
  /** `keep_alive` for the model, e.g. `10m`, `0`; default the relay's (5 minutes). */
  keepalive?: string;
  /** Print timings after each answer; default false. */
  verbose?: boolean;
  /** `json`, a JSON Schema (inline) or `@file` holding one; free text when absent. */
  format?: string;
  /** `--think` (true), `--no-think` (false), or absent for the model's default. */
  think?: boolean;
  /** Leave a thinking model's thinking out of the output; default false. */
  hidethinking?: boolean;
}

/**
 * `lmtab run MODEL [PROMPT...]`: one answer to PROMPT (with piped stdin before it), or an
 * interactive chat. MODEL may be a stored name, a hub reference (pulled when missing), or a local
 * `.gguf` file (sent to the engine's store and named after the file).
 */
export async function runCommand(
  context: CliContext,
  modelArg: string,
  promptWords: readonly string[],
  options: RunOptions,
): Promise<void> {
  // Bad flags fail before anything is loaded.
  const format =
    options.format === undefined ? undefined : parseFormat(options.format, { cwd: context.cwd });
  const { think } = options;
  const client = await context.connect();
  const display = createProgressDisplay({
    write: (t) => context.stderr.write(t),
    isTTY: context.stderr.isTTY === true,
    columns: context.stderr.columns ?? 80,
  });
  const model = await resolveRunModel(context, client, modelArg, display);
  display.finish();
  const info = await client.show(model);
  const vision = (info.capabilities ?? []).includes('vision');
  const session = createChatSession({
    client,
    model,
    stdout: context.stdout,
    stderr: context.stderr,
    ...(options.keepalive === undefined ? {} : { keepAlive: options.keepalive }),
    ...(options.verbose === undefined ? {} : { verbose: options.verbose }),
    ...(format === undefined ? {} : { format }),
    ...(think === undefined ? {} : { think }),
    ...(options.hidethinking === undefined ? {} : { hideThinking: options.hidethinking }),
  });

  const piped = context.stdin.isTTY !== true;
  const prompt = promptWords.join(' ');
  if (options.interactive !== true && (prompt !== '' || piped)) {
    // As Ollama: piped input comes first, then the prompt words.
    const input = piped ? await readAll(context.stdin) : '';
    const text = [input.trim(), prompt].filter((t) => t !== '').join(' ');
    if (text === '') {
      throw new LmtabError('invalid_request', 'Nothing to send: the prompt and stdin are empty.');
    }
    const { text: rest, images } = vision
      ? await takeImagePaths(text, context)
      : { text, images: [] };
    await session.send(rest, images);
    return;
  }
  await runRepl({ context, client, model, session, vision });
}

/** The stored name to chat with: a local file is uploaded, a missing hub model pulled. */
export async function resolveRunModel(
  context: CliContext,
  client: RelayClient,
  modelArg: string,
  display: ProgressDisplay,
): Promise<string> {
  const path = localModelPath(modelArg, { cwd: context.cwd, home: context.home, isFile });
  if (path === undefined) return ensureModel(client, modelArg, display);
  if (!isFile(path)) {
    throw new LmtabError(
      'invalid_request',
      `Cannot read ${modelArg}: no such file (looked for ${path}).`,
    );
  }
  const files = await uploadLocalModel(client, path, display);
  const name = modelNameFromFile(path);
  const [digest = ''] = Object.values(files);
  const stored = (await client.tags()).find((m) => m.name === name);
  const paired = Object.keys(files).length === 1 || (await hasVision(client, name));
  // The same file already stored under this name needs no new record.
  if (stored?.digest !== digest.replace(/^sha256:/, '') || !paired) {
    for await (const status of client.create({ model: name, files })) {
      if (status.status !== 'success') display.update(status);
    }
  }
  return name;
}

async function hasVision(client: RelayClient, name: string): Promise<boolean> {
  const info = await client.show(name).catch(() => undefined);
  return (info?.capabilities ?? []).includes('vision');
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
