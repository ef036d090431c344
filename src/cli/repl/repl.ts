import { createInterface } from 'node:readline';
import type { ChatSession } from './chat-session.js';
import type { CliContext } from '../cli-context.js';
import { formatCliError } from '../format/format-cli-error.js';
import { formatShow, parseParameterLines } from '../format/format-show.js';
import { formatTable } from '../format/format-table.js';
import { parseFormat } from './parse-format.js';
import { createMultilineReader, parseReplInput, replHelp } from './parse-repl-input.js';
import type { ReplInput, ShowTopic } from './parse-repl-input.js';
import { readImage } from './read-image.js';
import type { RelayClient } from '../relay-client.js';
import { takeImagePaths } from './take-image-paths.js';

/** Options of {@link runRepl}. */
export interface ReplOptions {
  context: CliContext;
  client: RelayClient;
  model: string;
  session: ChatSession;
  /** Whether image paths written in messages are attached (the model takes images). */
  vision: boolean;
}

/**
 * The interactive chat of `lmtab run`: `>>> ` prompts, streamed answers, the slash commands, and
 * `"""` blocks. Ctrl+C stops an answer (and at the prompt says how to leave); Ctrl+D exits. With
 * stdin not a terminal it reads the lines as a script, without prompts.
 */
export async function runRepl(options: ReplOptions): Promise<void> {
  const { context, session } = options;
  const { stdout, stderr } = context;
  const terminal = context.stdin.isTTY === true && stdout.isTTY === true;
  const rl = createInterface({
    input: context.stdin,
    ...(terminal ? { output: process.stdout } : {}),
    terminal,
    prompt: '>>> ',
  });
  let answering: AbortController | undefined;
  const interrupt = () => {
    if (answering !== undefined) {
      answering.abort();
      return;
    }
    if (!terminal) process.exit(130);
    stdout.write('\nUse Ctrl + d or /bye to exit.\n');
    rl.setPrompt('>>> ');
    rl.prompt();
  };
  rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  const multiline = createMultilineReader();
  let pendingImages: string[] = [];

  const show = async (what: ShowTopic): Promise<void> => {
    const info = await options.client.show(options.model);
    const none = (field: string) => `No ${field} was specified for this model.\n`;
    switch (what) {
      case 'info':
        stdout.write(formatShow(info));
        break;
      case 'modelfile':
        stdout.write(info.modelfile ?? none('Modelfile'));
        break;
      case 'template':
        stdout.write(info.template === undefined ? none('prompt template') : `${info.template}\n`);
        break;
      case 'system': {
        const system = session.system ?? info.system;
        stdout.write(system === undefined ? none('system message') : `${system}\n`);
        break;
      }
      case 'license':
        stdout.write(info.license === undefined ? none('license') : `${info.license}\n`);
        break;
      case 'parameters': {
        const model = parseParameterLines(info.parameters ?? '');
        const user = Object.entries(session.parameters).flatMap(([k, v]) =>
          (Array.isArray(v) ? v : [v]).map((item) => [k, JSON.stringify(item)]),
        );
        // The session's format and thinking travel beside the parameters, so they show with them.
        if (session.format !== undefined) user.push(['format', JSON.stringify(session.format)]);
        if (session.think !== undefined) user.push(['think', String(session.think)]);
        if (model.length === 0 && user.length === 0) stdout.write(none('parameters'));
        if (model.length > 0) stdout.write(`Model defined parameters:\n${formatTable(model)}`);
        if (user.length > 0) stdout.write(`User defined parameters:\n${formatTable(user)}`);
        break;
      }
    }
  };

  const send = async (text: string): Promise<void> => {
    const { images, text: rest } = options.vision
      ? await takeImagePaths(text, context)
      : { images: [], text };
    const all = [...pendingImages, ...images];
    pendingImages = [];
    answering = new AbortController();
    try {
      await session.send(rest, all, { signal: answering.signal });
    } finally {
      answering = undefined;
    }
  };

  /** Runs one input; true when the REPL should end. */
  const handle = async (input: ReplInput): Promise<boolean> => {
    switch (input.kind) {
      case 'empty':
        return false;
      case 'bye':
        return true;
      case 'help':
        stdout.write(replHelp);
        return false;
      case 'clear':
        session.clear();
        pendingImages = [];
        stdout.write('Cleared session context\n');
        return false;
      case 'show':
        await show(input.what);
        return false;
      case 'set-parameter':
        session.setParameter(input.name, input.values);
        stdout.write(`Set parameter '${input.name}' to '${input.values.join(', ')}'\n`);
        return false;
      case 'set-system':
        session.setSystem(input.text);
        stdout.write('Set system message.\n');
        return false;
      case 'set-format': {
        const format =
          input.value === undefined
            ? undefined
            : parseFormat(input.value, { cwd: context.cwd, source: '/set format' });
        session.setFormat(format);
        stdout.write(
          format === undefined
            ? 'Disabled format.\n'
            : format === 'json'
              ? "Set format to 'json' mode.\n"
              : 'Set format to a JSON Schema.\n',
        );
        return false;
      }
      case 'set-think':
        session.setThink(input.think);
        stdout.write(input.think ? "Set 'think' mode.\n" : "Set 'nothink' mode.\n");
        return false;
      case 'image': {
        pendingImages.push(await readImage(input.path, context));
        if (input.text === '') stdout.write(`Added image '${input.path}'\n`);
        else await send(input.text);
        return false;
      }
      case 'invalid':
        stderr.write(`${input.message}\n`);
        return false;
      case 'message':
        await send(input.text);
        return false;
    }
  };

  try {
    if (terminal) rl.prompt();
    for await (const line of rl) {
      const whole = multiline.push(line);
      if (whole === undefined) {
        rl.setPrompt('... ');
        if (terminal) rl.prompt();
        continue;
      }
      rl.setPrompt('>>> ');
      let done = false;
      try {
        done = await handle(parseReplInput(whole));
      } catch (error) {
        stderr.write(formatCliError(error));
      }
      if (done) break;
      if (terminal) rl.prompt();
    }
  } finally {
    process.off('SIGINT', interrupt);
    rl.close();
  }
}
