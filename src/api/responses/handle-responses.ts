import { LmtabError } from '../../errors/index.js';
import type { ChatMessage } from '../../engine/index.js';
import { iterableToStream } from '../encoders/iterable-to-stream.js';
import { jsonResponse } from '../encoders/json-response.js';
import { newId } from '../encoders/new-id.js';
import { openAiErrorBody } from '../openai/openai-error.js';
import { imageOptions, protocolHandler } from '../pipeline/protocol-handler.js';
import type { RouteContext } from '../pipeline/route-context.js';
import { formatSseEvent } from '../encoders/sse-encoder.js';
import { collectResponse, encodeResponseEvents } from './response-encoder.js';
import type { ResponseObject, ResponseStreamEvent } from './response-encoder.js';
import {
  isFunctionTool,
  isNamespaceTool,
  responsesRequestSchema,
} from './responses-request-schema.js';
import type { ResponsesFunctionTool, ResponsesRequest } from './responses-request-schema.js';
import {
  countResponsesImages,
  responsesRequestToGenerate,
} from './responses-request-to-generate.js';

/**
 * `POST /v1/responses` (OpenAI's Responses API): one response as JSON or as typed SSE events.
 * With `store` (default true) the response and its conversation are kept in the browser's
 * storage, so `previous_response_id` continues it and `GET`/`DELETE /v1/responses/{id}` find it.
 */
export const handleResponses = protocolHandler({
  schema: responsesRequestSchema,
  images: (wire) => ({ count: countResponsesImages(wire), param: 'input' }),
  async convert(wire, record, context) {
    const previous = wire.previous_response_id ?? undefined;
    const history =
      previous === undefined ? undefined : await storedConversation(context, previous);
    return responsesRequestToGenerate(wire, record.id, {
      ...(history === undefined ? {} : { history }),
      ...imageOptions(context),
    });
  },
  async answer({ wire, record, converted, start }, context) {
    const { conversation, namespaces } = converted;
    const events = await start();
    const initial = initialResponse(wire, record.id, context.clock());
    const keep = async (response: ResponseObject) => {
      if (wire.store === false || response.status === 'failed') return;
      await context.responses.put({
        id: response.id,
        createdAt: context.clock(),
        answer: response,
        conversation: [...conversation, answerMessage(response)],
      });
    };
    if (wire.stream === true) {
      const encoder = encodeResponseEvents(initial, events, { namespaces });
      const stream = iterableToStream<string>(streamed(encoder, keep), {
        onError: (error) => formatSseEvent(openAiErrorBody(error)),
        onCancel: (reason) => context.abort(reason),
      }).pipeThrough(new TextEncoderStream());
      return new Response(stream, {
        headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
      });
    }
    const response = await collectResponse(initial, events, { namespaces });
    await keep(response);
    return jsonResponse(response);
  },
});

/** `GET /v1/responses/{id}`: a stored response. */
export async function handleGetResponse(context: RouteContext): Promise<Response> {
  if (context.url.searchParams.get('stream') === 'true') {
    throw new LmtabError(
      'invalid_request',
      'Invalid `stream`: expected false (a stored response is answered whole), received true.',
      { param: 'stream' },
    );
  }
  const id = context.params.id ?? '';
  const stored = await context.responses.get(id);
  if (stored === undefined) throw unknownResponse(id);
  return jsonResponse(stored.answer);
}

/** `DELETE /v1/responses/{id}`: forgets a stored response. */
export async function handleDeleteResponse(context: RouteContext): Promise<Response> {
  const id = context.params.id ?? '';
  if (!(await context.responses.delete(id))) throw unknownResponse(id);
  return jsonResponse({ id, object: 'response', deleted: true });
}

async function storedConversation(context: RouteContext, id: string): Promise<ChatMessage[]> {
  const stored = await context.responses.get(id);
  if (stored === undefined) throw unknownResponse(id, 'previous_response_id');
  return stored.conversation as ChatMessage[];
}

function unknownResponse(id: string, param?: string): LmtabError {
  return new LmtabError(
    'not_found',
    `No stored response with id ${JSON.stringify(id)}: expected the id of a response created with \`store\` true in this browser (responses live in its storage until deleted).`,
    param === undefined ? {} : { param },
  );
}

/**
 * The SSE text of the encoder's events; stores the final response. Closing this generator closes
 * the encoder, and through it the generation (a `for await` would, but it drops the final value).
 */
async function* streamed(
  encoder: AsyncGenerator<ResponseStreamEvent, ResponseObject>,
  keep: (response: ResponseObject) => Promise<void>,
): AsyncGenerator<string> {
  let ended = false;
  try {
    for (;;) {
      const next = await encoder.next();
      if (next.done === true) {
        ended = true;
        await keep(next.value);
        return;
      }
      yield `event: ${next.value.type}\ndata: ${JSON.stringify(next.value)}\n\n`;
    }
  } finally {
    if (!ended) await encoder.return(undefined as never);
  }
}

/** The assistant turn a response adds to its conversation. */
function answerMessage(response: ResponseObject): ChatMessage {
  const message: ChatMessage = { role: 'assistant', content: [] };
  for (const item of response.output) {
    if (item.type === 'message') {
      message.content.push(
        ...item.content.map((part) => ({ type: 'text' as const, text: part.text })),
      );
    } else if (item.type === 'reasoning') {
      message.reasoning = (message.reasoning ?? '') + item.content.map((c) => c.text).join('');
    } else {
      (message.toolCalls ??= []).push({
        id: item.call_id,
        name: item.name,
        arguments: item.arguments,
      });
    }
  }
  return message;
}

/** The tools the model was given: function tools and namespaces of them (built-ins dropped). */
function echoTools(tools: NonNullable<ResponsesRequest['tools']>): unknown[] {
  const echo = (tool: ResponsesFunctionTool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description ?? null,
    parameters: tool.parameters ?? null,
    strict: tool.strict ?? null,
  });
  return tools.flatMap((tool): unknown[] => {
    if (isFunctionTool(tool)) return [echo(tool)];
    if (!isNamespaceTool(tool)) return [];
    return [
      {
        type: 'namespace',
        name: tool.name,
        description: tool.description ?? '',
        tools: tool.tools.filter(isFunctionTool).map(echo),
      },
    ];
  });
}

/** The response as it starts, echoing the request's settings as OpenAI does. */
function initialResponse(wire: ResponsesRequest, model: string, now: number): ResponseObject {
  return {
    id: newId('resp_'),
    object: 'response',
    created_at: Math.floor(now / 1000),
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: wire.instructions ?? null,
    max_output_tokens: wire.max_output_tokens ?? null,
    metadata: wire.metadata ?? {},
    model,
    output: [],
    parallel_tool_calls: wire.parallel_tool_calls ?? true,
    previous_response_id: wire.previous_response_id ?? null,
    reasoning: { effort: wire.reasoning?.effort ?? null, summary: wire.reasoning?.summary ?? null },
    store: wire.store ?? true,
    temperature: wire.temperature ?? null,
    text: { format: wire.text?.format ?? { type: 'text' } },
    tool_choice: wire.tool_choice ?? 'auto',
    tools: echoTools(wire.tools ?? []),
    top_p: wire.top_p ?? null,
    truncation: 'disabled',
    // Left out until known: OpenAI's spec types them as absent or set, never null.
    ...(wire.user === undefined || wire.user === null ? {} : { user: wire.user }),
  };
}
