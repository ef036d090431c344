import type { GenerateRequest } from '../../engine/index.js';
import type { ModelRecord } from '../../store/index.js';
import { createNdjsonDecoder, createSseDecoder } from '../../streams/index.js';
import type { SseEvent } from '../../streams/index.js';
import { createRouter } from '../routing/create-router.js';
import type { Router, RouterOptions } from '../routing/create-router.js';
import { createFakeEngine } from './fake-engine.js';
import type { FakeEngine, FakeScript } from './fake-engine.js';
import { createMemoryStore } from './memory-store.js';
import type { MemoryStore } from './memory-store.js';
import { modelRecordFixture } from './model-record-fixture.js';

/** Options of {@link routerHarness}. */
export interface RouterHarnessOptions extends Partial<Omit<RouterOptions, 'engine' | 'store'>> {
  /** Stored models; default one plain `lfm2-350m`. */
  records?: ModelRecord[];
  /** What the engine does per request. */
  script?: (request: GenerateRequest) => FakeScript;
}

/** A fresh router over an engine double and an in-memory store, with request helpers. */
export interface RouterHarness {
  router: Router;
  engine: FakeEngine;
  store: MemoryStore;
  /** POSTs (or sends with `method`) a JSON body; a string body is sent as is. */
  send(
    path: string,
    body?: unknown,
    init?: { method?: string; signal?: AbortSignal; headers?: Record<string, string> },
  ): Promise<Response>;
  get(path: string): Promise<Response>;
  /** POSTs a multipart/form-data body (OpenAI's audio uploads). */
  sendForm(path: string, form: FormData): Promise<Response>;
}

/** The fixed clock of harness routers: 2026-11-21T12:00:00.000Z. */
export const harnessNow = Date.UTC(2026, 10, 21, 12, 0, 0);

/** Builds a {@link RouterHarness}. */
export function routerHarness(options: RouterHarnessOptions = {}): RouterHarness {
  const engine = createFakeEngine(options.script);
  const store = createMemoryStore(options.records ?? [modelRecordFixture()]);
  const router = createRouter({
    version: '0.1.0',
    clock: () => harnessNow,
    ...options,
    engine,
    store,
  });
  return {
    router,
    engine,
    store,
    send(path, body, init = {}) {
      const request = new Request(`http://lmtab.test${path}`, {
        method: init.method ?? 'POST',
        headers: { 'Content-Type': 'application/json', ...init.headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return router.handle(request, { signal: init.signal });
    },
    get(path) {
      return router.handle(new Request(`http://lmtab.test${path}`));
    },
    sendForm(path, form) {
      return router.handle(new Request(`http://lmtab.test${path}`, { method: 'POST', body: form }));
    },
  };
}

/** Reads a streamed body chunk by chunk, as the decoded text of each chunk. */
export async function readChunks(response: Response): Promise<string[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(decoder.decode(value));
  }
}

/** The events of SSE chunks, through the one SSE decoder. */
export function sseEvents(chunks: string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = createSseDecoder((event) => events.push(event));
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return events;
}

/** Parses the `data:` payloads of SSE chunks (`[DONE]` stays a string). */
export function sseData(chunks: string[]): unknown[] {
  return sseEvents(chunks).map(({ data }) =>
    data === '[DONE]' ? data : (JSON.parse(data) as unknown),
  );
}

/** Parses the lines of an NDJSON body, through the one NDJSON decoder. */
export function ndjsonValues<T = Record<string, unknown>>(chunks: string[]): T[] {
  const values: T[] = [];
  const decoder = createNdjsonDecoder((line) => values.push(JSON.parse(line) as T));
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return values;
}
