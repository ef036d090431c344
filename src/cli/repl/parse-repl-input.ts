/** What one complete input of the `run` REPL asks for. */
export type ReplInput =
  | { kind: 'empty' }
  | { kind: 'message'; text: string }
  | { kind: 'bye' }
  | { kind: 'help' }
  | { kind: 'clear' }
  | { kind: 'show'; what: ShowTopic }
  | { kind: 'set-parameter'; name: string; values: string[] }
  | { kind: 'set-system'; text: string }
  /** `value`: `json`, a JSON Schema, or `@file` (read by the REPL); undefined clears the format. */
  | { kind: 'set-format'; value: string | undefined }
  | { kind: 'set-think'; think: boolean }
  | { kind: 'image'; path: string; text: string }
  | { kind: 'invalid'; message: string };

/** What `/show` can print. */
export type ShowTopic = 'info' | 'license' | 'modelfile' | 'parameters' | 'system' | 'template';

const showTopics: readonly ShowTopic[] = [
  'info',
  'license',
  'modelfile',
  'parameters',
  'system',
  'template',
];

/** The REPL's help text (`/?`). */
export const replHelp = `Available Commands:
  /set parameter NAME VALUE   Set a parameter (temperature, top_k, top_p, min_p, repeat_penalty,
                              repeat_last_n, presence_penalty, frequency_penalty, num_predict,
                              num_ctx, seed, stop; stop takes several values)
  /set system TEXT            Set the system message
  /set format json            Answer in JSON (/set format '{...}' or @FILE for a JSON Schema)
  /set format, /set noformat  Answer in free text again
  /set think, /set nothink    Let a thinking model think first, or not
  /show [info|license|modelfile|parameters|system|template]
                              Show model information
  /image PATH [QUESTION]      Attach an image (a path written in a message is attached too)
  /clear                      Clear the session context
  /bye                        Exit
  /?, /help                   Help for a command

Use """ to begin a multi-line message, and """ to end it.
Ctrl+C stops an answer; Ctrl+D (or /bye) exits.
`;

/** Parses one complete input (multi-line input already joined) of the REPL. */
export function parseReplInput(input: string): ReplInput {
  const text = input.trim();
  if (text === '') return { kind: 'empty' };
  if (!text.startsWith('/')) return { kind: 'message', text: input };
  const [command = '', ...args] = text.split(/\s+/);
  const rest = (after: number): string =>
    text.replace(new RegExp(`^(?:\\S+(?:\\s+|$)){${after}}`), '').trim();
  switch (command.toLowerCase()) {
    case '/bye':
    case '/exit':
      return { kind: 'bye' };
    case '/?':
    case '/help':
      return { kind: 'help' };
    case '/clear':
      return { kind: 'clear' };
    case '/show': {
      const what = (args[0] ?? 'info').toLowerCase();
      const topic = showTopics.find((t) => t === what);
      if (topic === undefined) {
        return invalid(
          `Unknown /show topic "${args[0]}": expected one of ${showTopics.join(', ')}.`,
        );
      }
      return { kind: 'show', what: topic };
    }
    case '/set':
      return parseSet(args, rest);
    case '/image': {
      const match = /^\/image\s+(?:(['"])(.+?)\1|((?:\\ |\S)+))\s*([\s\S]*)$/i.exec(text);
      const path = match?.[2] ?? match?.[3]?.replace(/\\ /g, ' ');
      if (path === undefined) return invalid('Usage: /image PATH [QUESTION]');
      return { kind: 'image', path, text: match?.[4]?.trim() ?? '' };
    }
    default:
      // A message that merely starts with a slash, such as a path, is sent as it is.
      if (/^\/[a-z?]+$/i.test(command)) {
        return invalid(`Unknown command "${command}". Type /? for help.`);
      }
      return { kind: 'message', text: input };
  }
}

function parseSet(args: readonly string[], rest: (after: number) => string): ReplInput {
  const what = (args[0] ?? '').toLowerCase();
  if (what === 'system') {
    const text = unquote(rest(2));
    if (text === '') return invalid('Usage: /set system TEXT');
    return { kind: 'set-system', text };
  }
  if (what === 'parameter') {
    const name = args[1];
    const values = args.slice(2).map(unquote);
    if (name === undefined || values.length === 0) {
      return invalid('Usage: /set parameter NAME VALUE');
    }
    return { kind: 'set-parameter', name, values };
  }
  if (what === 'format') {
    const value = unquote(rest(2));
    return { kind: 'set-format', value: value === '' ? undefined : value };
  }
  if (what === 'noformat') return { kind: 'set-format', value: undefined };
  if (what === 'think' || what === 'nothink') return { kind: 'set-think', think: what === 'think' };
  return invalid(
    `Unknown /set option "${args[0] ?? ''}": expected /set parameter NAME VALUE, /set system TEXT, /set format [json|SCHEMA|@FILE], /set noformat, /set think or /set nothink.`,
  );
}

function unquote(text: string): string {
  const m = /^(["'])([\s\S]*)\1$/.exec(text.trim());
  return m?.[2] ?? text.trim();
}

function invalid(message: string): ReplInput {
  return { kind: 'invalid', message };
}

/** Joins the lines of a `"""` multi-line input; feed it lines, it says when an input is whole. */
export interface MultilineReader {
  /** Takes one typed line: the whole input when it is complete, undefined while more is needed. */
  push(line: string): string | undefined;
  /** Whether a `"""` block is open (the prompt shows `...`). */
  readonly open: boolean;
}

/**
 * Creates a {@link MultilineReader}: a line starting with `"""` (or `/set system """`) opens a
 * block that the first line ending with `"""` closes, as in Ollama; the quotes are dropped.
 */
export function createMultilineReader(): MultilineReader {
  let lines: string[] | undefined;
  let prefix = '';
  return {
    get open() {
      return lines !== undefined;
    },
    push(line) {
      if (lines === undefined) {
        const opening = /^(\s*(?:\/set\s+system\s+)?)"""/i.exec(line);
        if (opening === null) return line;
        prefix = (opening[1] ?? '').trimStart();
        const body = line.slice(opening[0].length);
        if (body.trimEnd().endsWith('"""') && body.trimEnd().length >= 3) {
          return prefix + body.trimEnd().slice(0, -3);
        }
        lines = body === '' ? [] : [body];
        return undefined;
      }
      if (line.trimEnd().endsWith('"""')) {
        const last = line.trimEnd().slice(0, -3);
        if (last !== '') lines.push(last);
        const whole = prefix + lines.join('\n');
        lines = undefined;
        return whole;
      }
      lines.push(line);
      return undefined;
    },
  };
}
