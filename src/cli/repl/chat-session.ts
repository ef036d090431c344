import { normalizeParameters } from '../../modelfile/index.js';
import type { CliOutput } from '../cli-context.js';
import type { AnswerFormat } from './parse-format.js';
import type { ChatChunk, RelayClient, WireMessage } from '../relay-client.js';

/** Options of {@link createChatSession}. */
export interface ChatSessionOptions {
  client: RelayClient;
  /** The stored model's name. */
  model: string;
  /** Where the answer streams. */
  stdout: CliOutput;
  /** Where timings go (`--verbose`). */
  stderr: CliOutput;
  /** `keep_alive` sent with each request (`--keepalive`); default the relay's. */
  keepAlive?: string;
  /** Print timings after each answer (`--verbose`); default false. */
  verbose?: boolean;
  /** The answers' format (`--format`); free text when absent. */
  format?: AnswerFormat;
  /** Whether a thinking model thinks (`--think`); the model's default when absent. */
  think?: boolean;
  /** Leave the thinking out of the output (`--hidethinking`); default false. */
  hideThinking?: boolean;
}

const dim = '\x1b[2m';
const undim = '\x1b[22m';

/** One conversation with a model: history, system message, parameters, and the answer in flight. */
export interface ChatSession {
  /** Sends a user message and streams the answer; false when it was stopped or failed. */
  send(
    text: string,
    images?: readonly string[],
    options?: { signal?: AbortSignal },
  ): Promise<boolean>;
  /** Sets a parameter for the coming messages (`/set parameter`); throws when invalid. */
  setParameter(name: string, values: readonly string[]): void;
  /** Sets the system message (`/set system`). */
  setSystem(text: string): void;
  /** Sets the answers' format (`/set format`), or back to free text with undefined. */
  setFormat(format: AnswerFormat | undefined): void;
  /** Turns thinking on or off (`/set think`, `/set nothink`). */
  setThink(think: boolean): void;
  /** Forgets the conversation (`/clear`); the system message and parameters stay. */
  clear(): void;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly system: string | undefined;
  readonly format: AnswerFormat | undefined;
  readonly think: boolean | undefined;
  readonly messages: readonly WireMessage[];
}

/** Creates a {@link ChatSession} over `/api/chat`. */
export function createChatSession(options: ChatSessionOptions): ChatSession {
  const { client, model, stdout } = options;
  let history: WireMessage[] = [];
  let system: string | undefined;
  let format = options.format;
  let think = options.think;
  const parameters: Record<string, unknown> = {};
  // Thinking shows dimmed on a terminal; piped, only when asked for, so that the answer alone
  // reaches a program reading it.
  const showThinking = () =>
    options.hideThinking !== true && (stdout.isTTY === true || think === true);

  return {
    get parameters() {
      return parameters;
    },
    get system() {
      return system;
    },
    get format() {
      return format;
    },
    get think() {
      return think;
    },
    setFormat(next) {
      format = next;
    },
    setThink(next) {
      think = next;
    },
    get messages() {
      return history;
    },
    setParameter(name, values) {
      const value = name === 'stop' ? [...values] : values.join(' ');
      Object.assign(parameters, normalizeParameters({ [name]: value }));
    },
    setSystem(text) {
      system = text;
    },
    clear() {
      history = [];
    },
    async send(text, images = [], sendOptions = {}) {
      const user: WireMessage = { role: 'user', content: text };
      if (images.length > 0) user.images = [...images];
      const messages: WireMessage[] = [
        ...(system === undefined ? [] : [{ role: 'system' as const, content: system }]),
        ...history,
        user,
      ];
      let answer = '';
      let thinking = false;
      let last: ChatChunk | undefined;
      const tty = stdout.isTTY === true;
      const endThinking = () => {
        if (!thinking) return;
        thinking = false;
        stdout.write(`\n...done thinking.${tty ? undim : ''}\n\n`);
      };
      try {
        const chunks = client.chat(
          {
            model,
            messages,
            ...(Object.keys(parameters).length > 0 ? { options: parameters } : {}),
            ...(options.keepAlive === undefined ? {} : { keep_alive: options.keepAlive }),
            ...(format === undefined ? {} : { format }),
            ...(think === undefined ? {} : { think }),
          },
          sendOptions,
        );
        for await (const chunk of chunks) {
          const reasoning = chunk.message?.thinking ?? '';
          if (reasoning !== '' && showThinking()) {
            if (!thinking) stdout.write(`${tty ? dim : ''}Thinking...\n`);
            thinking = true;
            stdout.write(reasoning);
          }
          const content = chunk.message?.content ?? '';
          if (content !== '') {
            endThinking();
            stdout.write(content);
            answer += content;
          }
          last = chunk;
        }
      } catch (error) {
        if (thinking && tty) stdout.write(undim);
        if (sendOptions.signal?.aborted === true) {
          // Stopped with Ctrl+C: the unanswered message leaves the history, as if never sent.
          stdout.write('\n');
          return false;
        }
        if (answer !== '') stdout.write('\n');
        throw error;
      }
      endThinking();
      stdout.write('\n');
      history.push(user, { role: 'assistant', content: answer });
      if (options.verbose === true && last !== undefined) options.stderr.write(formatStats(last));
      return true;
    },
  };
}

/** Ollama's `--verbose` timings of one answer. */
export function formatStats(done: ChatChunk): string {
  const ms = (ns: number | undefined) => (ns ?? 0) / 1e6;
  const duration = (ns: number | undefined) => {
    const value = ms(ns);
    return value >= 1000 ? `${(value / 1000).toFixed(3)}s` : `${value.toFixed(3)}ms`;
  };
  const rate = (count: number | undefined, ns: number | undefined) =>
    ms(ns) > 0 ? `${(((count ?? 0) / ms(ns)) * 1000).toFixed(2)} tokens/s` : 'n/a';
  const rows: [string, string][] = [
    ['total duration', duration(done.total_duration)],
    ['load duration', duration(done.load_duration)],
    ['prompt eval count', `${done.prompt_eval_count ?? 0} token(s)`],
    ['prompt eval duration', duration(done.prompt_eval_duration)],
    ['prompt eval rate', rate(done.prompt_eval_count, done.prompt_eval_duration)],
    ['eval count', `${done.eval_count ?? 0} token(s)`],
    ['eval duration', duration(done.eval_duration)],
    ['eval rate', rate(done.eval_count, done.eval_duration)],
  ];
  return `${rows.map(([k, v]) => `${`${k}:`.padEnd(22)}${v}`).join('\n')}\n`;
}
