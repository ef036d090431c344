import { request as httpRequest } from 'node:http';

/**
 * How one request ended, from the client's side: `answered` (the whole answer, as asked),
 * `failed` (a status or a stream's last event with an error message in the protocol's shape),
 * `refused` (no connection: the relay was restarting), `cut` (the client went away on purpose
 * mid-stream), `lost` (no answer at all: a reset, a stream that stops without its end or error,
 * or silence past the timeout).
 */
export type Outcome = 'answered' | 'failed' | 'refused' | 'cut' | 'lost';

/** One request of the soak and how it ended. */
export interface SoakResult {
  kind: string;
  outcome: Outcome;
  /** When it was sent, in milliseconds since the traffic began. */
  sentMs: number;
  /** Milliseconds from sending to the end. */
  ms: number;
  /** Why it failed or was lost. */
  detail?: string;
}

/** The models the soak creates in the headless engine. */
export const soakModels = { chat: 'soak-chat', embed: 'soak-embed' } as const;

interface Sent {
  status: number;
  body: string;
  /** Set when the connection broke or timed out (before or after the head). */
  broken?: string;
  refused?: boolean;
  cut?: boolean;
}

/**
 * Sends one request over a connection of its own and reads the answer; with `cutAfterFirstChunk`
 * the client goes away once the first piece of the body arrives, as a person closing a tab does.
 */
function send(
  base: URL,
  method: string,
  path: string,
  body: string | undefined,
  options: { timeoutMs: number; cutAfterFirstChunk?: boolean },
): Promise<Sent> {
  return new Promise((resolve) => {
    let status = 0;
    let text = '';
    const request = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent: false,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      },
      (response) => {
        status = response.statusCode ?? 0;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          if (options.cutAfterFirstChunk && status === 200) {
            request.destroy();
            resolve({ status, body: text, cut: true });
          }
        });
        response.on('end', () => resolve({ status, body: text }));
        response.on('aborted', () => resolve({ status, body: text, broken: 'aborted mid-body' }));
        response.on('error', (error) =>
          resolve({ status, body: text, broken: `mid-body: ${error.message}` }),
        );
      },
    );
    request.setTimeout(options.timeoutMs, () =>
      request.destroy(new Error(`no answer for ${options.timeoutMs / 1000} s`)),
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve({
        status,
        body: text,
        refused: error.code === 'ECONNREFUSED',
        broken: `${error.code ?? ''} ${error.message}`.trim(),
      }),
    );
    request.end(body);
  });
}

/** The error message of a JSON error body in any of the three shapes, or undefined. */
function errorMessage(text: string): string | undefined {
  try {
    const value = JSON.parse(text) as { error?: unknown };
    const error = value.error;
    if (typeof error === 'string') return error;
    const message = (error as { message?: unknown } | undefined)?.message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}

/** One kind of request: how it is sent and how its answer is judged complete. */
interface Kind {
  name: string;
  /** Whether it runs a model in the engine (a generation or an embedding). */
  runsModel: boolean;
  method: string;
  path: string;
  body?: unknown;
  cut?: boolean;
  /** Whether a 2xx (or the expected 4xx) body is whole; a string says why not. */
  complete(status: number, body: string): true | string;
  /** A stream that ended with its own error event: failed, with this message. */
  streamError?(body: string): string | undefined;
}

const user = [{ role: 'user', content: 'Tell me about the sea.' }];
const tool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const lastLine = (body: string) => body.trim().split('\n').at(-1) ?? '';

/** The mixed traffic: streams in each protocol, tools, embeddings, cut clients, bad input. */
export const soakKinds: readonly Kind[] = [
  {
    name: 'chat',
    runsModel: true,
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: soakModels.chat, messages: user, max_tokens: 8 },
    complete: (status, body) =>
      status === 200 && body.includes('"choices"') ? true : `status ${status}`,
  },
  {
    name: 'chat-stream',
    runsModel: true,
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: soakModels.chat, messages: user, max_tokens: 16, stream: true },
    complete: (status, body) =>
      status === 200 && body.trimEnd().endsWith('data: [DONE]') ? true : 'no [DONE]',
    streamError: (body) => /data: (\{"error".*)\n\n$/.exec(body)?.[1],
  },
  {
    name: 'ollama-stream',
    runsModel: true,
    method: 'POST',
    path: '/api/chat',
    body: { model: soakModels.chat, messages: user, options: { num_predict: 16 } },
    complete: (status, body) =>
      status === 200 && /"done":true/.test(lastLine(body)) ? true : 'no done line',
    streamError: (body) => (/^\{"error":/.test(lastLine(body)) ? lastLine(body) : undefined),
  },
  {
    name: 'anthropic-stream',
    runsModel: true,
    method: 'POST',
    path: '/v1/messages',
    body: { model: soakModels.chat, messages: user, max_tokens: 16, stream: true },
    complete: (status, body) =>
      status === 200 && body.includes('event: message_stop') ? true : 'no message_stop',
    streamError: (body) => /event: error\ndata: (.*)\n/.exec(body)?.[1],
  },
  {
    name: 'tools',
    runsModel: true,
    method: 'POST',
    path: '/v1/chat/completions',
    body: {
      model: soakModels.chat,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [tool],
      tool_choice: 'required',
      max_tokens: 48,
    },
    // A random-weight model may run out of tokens inside the forced call: the answer is still whole.
    complete: (status, body) =>
      status === 200 && body.includes('"chat.completion"') ? true : `status ${status}`,
  },
  {
    name: 'embeddings',
    runsModel: true,
    method: 'POST',
    path: '/v1/embeddings',
    body: { model: soakModels.embed, input: ['a tide', 'the moon'] },
    complete: (status, body) =>
      status === 200 && (body.match(/"embedding":\[/g) ?? []).length === 2
        ? true
        : `status ${status}`,
  },
  {
    name: 'ollama-embed',
    runsModel: true,
    method: 'POST',
    path: '/api/embed',
    body: { model: soakModels.embed, input: 'a tide' },
    complete: (status, body) =>
      status === 200 && body.includes('"embeddings"') ? true : `status ${status}`,
  },
  {
    name: 'disconnect',
    runsModel: true,
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: soakModels.chat, messages: user, max_tokens: 64, stream: true },
    cut: true,
    complete: (status) => (status === 200 ? true : `status ${status}`),
  },
  {
    name: 'bad-input',
    runsModel: false,
    method: 'POST',
    path: '/api/generate',
    body: '['.repeat(100_000) + ']'.repeat(100_000),
    complete: (status, body) =>
      status === 400 && body.includes('nested too deeply') ? true : `status ${status}`,
  },
  {
    name: 'models',
    runsModel: false,
    method: 'GET',
    path: '/v1/models',
    complete: (status, body) =>
      status === 200 && body.includes(soakModels.chat) ? true : `status ${status}`,
  },
];

/** How {@link runKind} sends. */
export interface RunKindOptions {
  /** Milliseconds without a byte before the request counts as lost. */
  timeoutMs: number;
  /** When the traffic began (`Date.now()`), the zero of `sentMs`. */
  epoch: number;
}

/** Sends one request of `kind` to the relay at `base` and judges how it ended. */
export async function runKind(
  base: URL,
  kind: Kind,
  { timeoutMs, epoch }: RunKindOptions,
): Promise<SoakResult> {
  const started = Date.now();
  const body =
    kind.body === undefined
      ? undefined
      : typeof kind.body === 'string'
        ? kind.body
        : JSON.stringify(kind.body);
  const sent = await send(base, kind.method, kind.path, body, {
    timeoutMs,
    cutAfterFirstChunk: kind.cut,
  });
  const result = (outcome: Outcome, detail?: string): SoakResult => ({
    kind: kind.name,
    outcome,
    sentMs: started - epoch,
    ms: Date.now() - started,
    ...(detail === undefined ? {} : { detail }),
  });
  if (sent.refused) return result('refused', sent.broken);
  if (sent.cut) return result('cut');
  if (sent.status === 0) return result('lost', sent.broken ?? 'no status');
  if (sent.broken !== undefined) {
    // The head came, then the connection broke: an error event before it still said why.
    const said = kind.streamError?.(sent.body);
    return said === undefined
      ? result('lost', `${sent.broken} after status ${sent.status}`)
      : result('failed', said);
  }
  const complete = kind.complete(sent.status, sent.body);
  if (complete === true) return result('answered');
  const streamed = sent.status === 200 ? kind.streamError?.(sent.body) : undefined;
  if (streamed !== undefined) return result('failed', streamed.slice(0, 300));
  const message = errorMessage(sent.body);
  if (sent.status >= 400 && message !== undefined) {
    return result('failed', `${sent.status}: ${message.slice(0, 300)}`);
  }
  return result('lost', `${complete}: ${sent.body.slice(-300)}`);
}
