import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { LmtabError } from '../../errors/index.js';
import { parseModelfile } from '../../modelfile/index.js';
import type { CliContext } from '../cli-context.js';
import { localModelPath } from '../models/local-model-path.js';
import { createProgressDisplay } from '../format/progress-display.js';
import { ensureModel } from '../models/pull-model.js';
import type { CreateRequest } from '../relay-client.js';
import { describeFsError, uploadLocalModel } from '../models/upload-model-file.js';

/** Options of {@link createCommand}. */
export interface CreateOptions {
  /** The Modelfile's path; default `Modelfile` in the current folder, as in Ollama. */
  file?: string;
}

/**
 * `lmtab create NAME -f Modelfile`: parses the Modelfile here (so errors name its line), sends a
 * FROM file as a blob or pulls a FROM reference the store lacks, then `POST /api/create`.
 */
export async function createCommand(
  context: CliContext,
  name: string,
  options: CreateOptions,
): Promise<void> {
  const shown = options.file ?? 'Modelfile';
  const path = resolve(context.cwd, shown);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new LmtabError(
      'invalid_request',
      `Cannot read the Modelfile ${shown}: ${describeFsError(error)}.`,
      { cause: error },
    );
  }
  const modelfile = parseModelfile(text);
  const fromLine = text.split(/\r\n|\r|\n/).findIndex((l) => /^\s*from\s/i.test(l)) + 1;
  const fromPath = localModelPath(modelfile.from, {
    cwd: dirname(path),
    home: context.home,
    isFile,
  });
  if (fromPath !== undefined && !isFile(fromPath)) {
    throw new LmtabError(
      'invalid_request',
      `Modelfile line ${fromLine}: FROM ${modelfile.from}: no such file (looked for ${fromPath}).`,
    );
  }

  const client = await context.connect();
  const display = createProgressDisplay({
    write: (t) => context.stderr.write(t),
    isTTY: context.stderr.isTTY === true,
    columns: context.stderr.columns ?? 80,
  });
  display.update({ status: 'gathering model components' });
  const body: CreateRequest = {
    model: name,
    parameters: modelfile.parameters,
    messages: modelfile.messages,
  };
  if (modelfile.template !== undefined) body.template = modelfile.template;
  if (modelfile.system !== undefined) body.system = modelfile.system;
  if (modelfile.license !== undefined) body.license = modelfile.license;
  if (fromPath !== undefined) {
    body.files = await uploadLocalModel(client, fromPath, display);
  } else {
    body.from = await ensureModel(client, modelfile.from, display);
  }
  for await (const status of client.create(body)) display.update(status);
  display.finish();
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
