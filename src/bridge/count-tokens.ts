// For the tab's request log only: how many tokens an answer carried, read from its own bytes.

/** Largest JSON answer read for its usage; bigger ones are not counted. */
const maxJsonBytes = 1024 * 1024;

interface Usage {
  usage?: { completion_tokens?: unknown } | null;
  eval_count?: unknown;
  response?: unknown;
  message?: { content?: unknown };
  choices?: { delta?: { content?: unknown }; text?: unknown }[];
}

/** The token count an answer reports itself (OpenAI `usage`, native `eval_count`). */
function reported(value: Usage): number | undefined {
  const count = value.usage?.completion_tokens ?? value.eval_count;
  return typeof count === 'number' ? count : undefined;
}

/** Whether a stream event carries generated text (one token per event in lmtab's encoders). */
function carriesText(value: Usage): boolean {
  const choice = value.choices?.[0];
  const text = choice?.delta?.content ?? choice?.text ?? value.message?.content ?? value.response;
  return typeof text === 'string' && text !== '';
}

/** A running count of the tokens in an answer of `contentType`, fed its body piece by piece. */
export interface TokenCounter {
  push(chunk: Uint8Array): void;
  /** The usage the answer reported, else the text events seen; undefined when unknown. */
  result(): number | undefined;
}

/** Counts tokens of a JSON, SSE (`/v1` streams) or NDJSON (`/api` streams) answer. */
export function createTokenCounter(contentType: string): TokenCounter {
  const decoder = new TextDecoder();
  const stream =
    contentType.startsWith('text/event-stream') || contentType.startsWith('application/x-ndjson');
  const json = contentType.startsWith('application/json');
  let pending = '';
  let bytes = 0;
  let events = 0;
  let usage: number | undefined;

  const readLine = (line: string) => {
    const payload = line.startsWith('data:') ? line.slice(5).trim() : line.trim();
    if (!payload.startsWith('{')) return;
    try {
      const value = JSON.parse(payload) as Usage;
      usage = reported(value) ?? usage;
      if (carriesText(value)) events += 1;
    } catch {
      // A line that is not JSON carries no count.
    }
  };

  return {
    push(chunk) {
      bytes += chunk.byteLength;
      if (stream) {
        pending += decoder.decode(chunk, { stream: true });
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        lines.forEach(readLine);
      } else if (json && bytes <= maxJsonBytes) {
        pending += decoder.decode(chunk, { stream: true });
      }
    },
    result() {
      if (stream) {
        readLine(pending);
        pending = '';
        return usage ?? (events > 0 ? events : undefined);
      }
      if (!json || bytes > maxJsonBytes) return undefined;
      try {
        return reported(JSON.parse(pending) as Usage);
      } catch {
        return undefined;
      }
    },
  };
}
