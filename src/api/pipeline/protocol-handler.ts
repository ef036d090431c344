import type { z } from 'zod';
import type { GenerateEvent, GenerateRequest } from '../../engine/index.js';
import type { ModelRecord } from '../../store/index.js';
import { assertAcceptsImages } from '../media/assert-accepts-images.js';
import { customizeRequest } from './customize-request.js';
import { findModel } from './find-model.js';
import { parseWire } from '../body/parse-wire.js';
import { readJsonBody } from '../body/read-json-body.js';
import type { RouteContext, RouteHandler } from './route-context.js';
import { startGeneration } from './start-generation.js';

/** A request the pipeline has read, checked and converted, ready to answer. */
export interface Prepared<W, X> {
  wire: W;
  /** The stored model the request names. */
  record: ModelRecord;
  /** The one internal generate request, with the stored model's Modelfile settings applied. */
  request: GenerateRequest;
  /** What the protocol's conversion returned besides the request (a conversation, names). */
  converted: X;
  /** Starts the generation and waits for its first event (so early failures keep a status). */
  start(): Promise<AsyncIterable<GenerateEvent>>;
}

/**
 * One protocol's generating route, as its own parts: the pipeline around them (read the body,
 * parse it, find the model, check images, convert, apply the Modelfile, answer) is
 * {@link protocolHandler}'s, written once for every protocol.
 */
export interface ProtocolRoute<S extends z.ZodType<{ model: string }>, X extends Converted> {
  /** The wire schema of the request body. */
  schema: S;
  /** The images the request carries and where, checked before any is fetched or decoded. */
  images?: (wire: z.output<S>) => { count: number; param: string };
  /** The wire request as the internal generate request (and whatever else the answer needs). */
  convert(wire: z.output<S>, record: ModelRecord, context: RouteContext): X | Promise<X>;
  /** Ollama's `options`, laid over the Modelfile's PARAMETERs by name (see customizeRequest). */
  options?: (wire: z.output<S>) => Readonly<Record<string, unknown>> | undefined;
  /** Encodes the answer in the protocol's shapes, starting the generation when it needs one. */
  answer(prepared: Prepared<z.output<S>, X>, context: RouteContext): Promise<Response>;
}

/** What a protocol's conversion returns: at least the generate request. */
export interface Converted {
  request: GenerateRequest;
}

/** The route handler of a {@link ProtocolRoute}: the one pipeline every generating route runs. */
export function protocolHandler<S extends z.ZodType<{ model: string }>, X extends Converted>(
  route: ProtocolRoute<S, X>,
): RouteHandler {
  return async (context) => {
    const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
    const wire = parseWire(route.schema, body);
    const record = await findModel(context.store, wire.model);
    if (route.images !== undefined) {
      const { count, param } = route.images(wire);
      assertAcceptsImages(context.engine, record, count, param);
    }
    const converted = await route.convert(wire, record, context);
    const options = route.options?.(wire);
    const request = customizeRequest(record, converted.request, {
      clock: context.clock,
      ...(options === undefined ? {} : { options }),
    });
    const start = () => startGeneration(context.engine, request, context.signal);
    return route.answer({ wire, record, request, converted, start }, context);
  };
}

/** The options of a conversion that fetches and decodes images (the context's limits). */
export function imageOptions(context: RouteContext): {
  fetch: typeof globalThis.fetch;
  signal: AbortSignal;
  maxImageBytes: number;
} {
  return { fetch: context.fetch, signal: context.signal, maxImageBytes: context.maxBodyBytes };
}
