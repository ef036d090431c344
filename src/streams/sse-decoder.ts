import { createParser } from 'eventsource-parser';

/** One server-sent event: its `event:` name (absent for plain messages) and its `data:` text. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/** A push decoder: feed it bytes (or text) as they arrive; it calls back once per whole event. */
export interface StreamDecoder {
  push(chunk: Uint8Array | string): void;
  /** The body ended: decodes what is left. */
  end(): void;
}

/** Decodes a `text/event-stream` body pushed piece by piece, calling `onEvent` per event. */
export function createSseDecoder(onEvent: (event: SseEvent) => void): StreamDecoder {
  const text = new TextDecoder();
  const parser = createParser({ onEvent: ({ event, data, id }) => onEvent({ event, data, id }) });
  return {
    push(chunk) {
      parser.feed(typeof chunk === 'string' ? chunk : text.decode(chunk, { stream: true }));
    },
    end() {
      // A body may end without the blank line after its last event (or inside a CR LF pair).
      parser.feed(`${text.decode()}\n`);
      parser.reset({ consume: true });
    },
  };
}
