import type { ChatMessage, ContentPart, GenerateRequest } from '../../engine/index.js';
import { LmtabError } from '../../errors/index.js';
import { assertEnforceableSchema } from '../assert-enforceable-schema.js';
import { decodeImage } from '../decode-image.js';
import { omitUndefined } from '../omit-undefined.js';
import type { ResponsesInputItem, ResponsesRequest } from './responses-request-schema.js';

/** Options of {@link responsesRequestToGenerate}. */
export interface ResponsesToGenerateOptions {
  /** The conversation of `previous_response_id`, continued by this request; none when absent. */
  history?: ChatMessage[];
  /** Fetches images given by http(s) URL. */
  fetch: typeof globalThis.fetch;
  /** Aborts image fetches. */
  signal?: AbortSignal;
  /** Largest image accepted, in bytes. */
  maxImageBytes: number;
}

/** A converted request, and the conversation it continues (the input included, no instructions). */
export interface ConvertedResponsesRequest {
  request: GenerateRequest;
  conversation: ChatMessage[];
}

/**
 * Converts a `/v1/responses` body to a generate request for `model`. As OpenAI has it, the
 * instructions of an earlier response are not carried over: each request's own lead the chat.
 */
export async function responsesRequestToGenerate(
  wire: ResponsesRequest,
  model: string,
  options: ResponsesToGenerateOptions,
): Promise<ConvertedResponsesRequest> {
  const input = await inputMessages(wire.input, options);
  const conversation = [...(options.history ?? []), ...input];
  const system: ChatMessage[] =
    wire.instructions === undefined || wire.instructions === null
      ? []
      : [{ role: 'system', content: [{ type: 'text', text: wire.instructions }] }];
  const request: GenerateRequest = {
    model,
    input: { kind: 'chat', messages: [...system, ...conversation] },
    sampling: omitUndefined({
      temperature: wire.temperature,
      topP: wire.top_p,
      maxTokens: wire.max_output_tokens,
    }),
  };
  const tools = wire.tools ?? [];
  tools.forEach((tool, i) => {
    if (tool.parameters != null) assertEnforceableSchema(tool.parameters, `tools[${i}].parameters`);
  });
  if (wire.tools !== undefined && wire.tools !== null && wire.tools.length > 0) {
    request.tools = wire.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description === undefined || tool.description === null
        ? {}
        : { description: tool.description }),
      parameters: tool.parameters ?? { type: 'object', properties: {} },
      ...(tool.strict === undefined || tool.strict === null ? {} : { strict: tool.strict }),
    }));
  }
  const choice = wire.tool_choice;
  if (choice !== undefined && choice !== null) {
    assertChoosable(
      choice,
      tools.map((tool) => tool.name),
    );
    request.toolChoice = typeof choice === 'string' ? choice : { name: choice.name };
  }
  if (wire.parallel_tool_calls !== undefined && wire.parallel_tool_calls !== null) {
    request.parallelToolCalls = wire.parallel_tool_calls;
  }
  const format = wire.text?.format;
  if (format?.type === 'json_object') request.format = { type: 'json' };
  if (format?.type === 'json_schema') {
    assertEnforceableSchema(format.schema, 'text.format.schema');
    request.format = { type: 'json', schema: format.schema };
  }
  const effort = wire.reasoning?.effort;
  if (effort !== undefined && effort !== null) request.thinking = effort !== 'none';
  return { request, conversation };
}

/** Refuses a choice that names no given tool, or requires a call with no tools. */
function assertChoosable(
  choice: NonNullable<ResponsesRequest['tool_choice']>,
  names: string[],
): void {
  if (choice === 'required' && names.length === 0) {
    throw new LmtabError(
      'invalid_request',
      '`tool_choice: "required"` needs at least one tool in `tools`, received none.',
      { param: 'tool_choice' },
    );
  }
  if (typeof choice !== 'string' && !names.includes(choice.name)) {
    throw new LmtabError(
      'invalid_request',
      `Invalid \`tool_choice.name\`: expected one of the tools (${names.map((n) => JSON.stringify(n)).join(', ') || 'none given'}), received ${JSON.stringify(choice.name)}.`,
      { param: 'tool_choice.name' },
    );
  }
}

/** How many images a `/v1/responses` body carries. */
export function countResponsesImages(wire: ResponsesRequest): number {
  if (typeof wire.input === 'string') return 0;
  return wire.input.reduce(
    (sum, item) =>
      sum +
      (item.type === 'message' && Array.isArray(item.content)
        ? item.content.filter((p) => p.type === 'input_image').length
        : 0),
    0,
  );
}

async function inputMessages(
  input: ResponsesRequest['input'],
  options: ResponsesToGenerateOptions,
): Promise<ChatMessage[]> {
  if (typeof input === 'string')
    return [{ role: 'user', content: [{ type: 'text', text: input }] }];
  const messages: ChatMessage[] = [];
  const toolNames = new Map<string, string>();
  for (const call of options.history?.flatMap((m) => m.toolCalls ?? []) ?? []) {
    toolNames.set(call.id, call.name);
  }
  let reasoning = '';
  // The assistant message that function calls following it belong to (one turn, several items).
  let turn: ChatMessage | undefined;
  for (const [i, item] of input.entries()) {
    switch (item.type) {
      case 'reasoning':
        reasoning += (item.content ?? []).map((c) => c.text).join('');
        break;
      case 'function_call': {
        toolNames.set(item.call_id, item.name);
        if (turn === undefined) {
          turn = { role: 'assistant', content: [] };
          messages.push(turn);
        }
        (turn.toolCalls ??= []).push({
          id: item.call_id,
          name: item.name,
          arguments: item.arguments,
        });
        break;
      }
      case 'function_call_output': {
        turn = undefined;
        const text =
          typeof item.output === 'string' ? item.output : item.output.map((p) => p.text).join('');
        const name = toolNames.get(item.call_id);
        messages.push({
          role: 'tool',
          content: [{ type: 'text', text }],
          toolCallId: item.call_id,
          ...(name === undefined ? {} : { toolName: name }),
        });
        break;
      }
      case 'message': {
        const message = await toMessage(item, `input[${i}].content`, options);
        turn = message.role === 'assistant' ? message : undefined;
        messages.push(message);
        break;
      }
    }
    if (turn !== undefined && reasoning !== '') {
      turn.reasoning = reasoning;
      reasoning = '';
    }
  }
  return messages;
}

async function toMessage(
  item: Extract<ResponsesInputItem, { type: 'message' }>,
  path: string,
  options: ResponsesToGenerateOptions,
): Promise<ChatMessage> {
  const role = item.role === 'developer' ? 'system' : item.role;
  if (typeof item.content === 'string') {
    return { role, content: [{ type: 'text', text: item.content }] };
  }
  const content = await Promise.all(
    item.content.map(async (part, j): Promise<ContentPart> => {
      switch (part.type) {
        case 'input_text':
        case 'output_text':
          return { type: 'text', text: part.text };
        case 'refusal':
          return { type: 'text', text: part.refusal };
        case 'input_image':
          return decodeImage(part.image_url, {
            param: `${path}[${j}].image_url`,
            fetch: options.fetch,
            signal: options.signal,
            maxBytes: options.maxImageBytes,
          });
      }
    }),
  );
  return { role, content };
}
