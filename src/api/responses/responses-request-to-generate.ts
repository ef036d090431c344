import { toolRequest } from '../tools/tool-definitions.js';
import type { ChatMessage, ContentPart, GenerateRequest, ToolChoice } from '../../engine/index.js';
import { LmtabError } from '../../errors/index.js';
import { assertEnforceableSchema } from '../tools/assert-enforceable-schema.js';
import { decodeImage } from '../media/decode-image.js';
import { droppedToolForced } from '../tools/dropped-tool-forced.js';
import { omitUndefined } from '../pipeline/omit-undefined.js';
import { isFunctionChoice, isFunctionTool, isNamespaceTool } from './responses-request-schema.js';
import type {
  ResponsesFunctionTool,
  ResponsesInputItem,
  ResponsesRequest,
} from './responses-request-schema.js';

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
  /** The namespace of each function tool that came from a `namespace` tool, by function name. */
  namespaces: Map<string, string>;
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
  const tools = functionTools(wire.tools ?? []);
  const choice = toToolChoice(
    wire.tool_choice,
    tools.map(({ tool }) => tool.name),
  );
  Object.assign(
    request,
    toolRequest(
      tools.map(({ tool, param }) => ({ ...tool, param: `${param}.parameters` })),
      choice,
    ),
  );
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
  const namespaces = new Map(
    tools.flatMap(({ tool, namespace }) =>
      namespace === undefined ? [] : [[tool.name, namespace]],
    ),
  );
  return { request, conversation, namespaces };
}

/** A function tool the model may call, where it sits in the request, and its namespace if any. */
interface PlacedTool {
  tool: ResponsesFunctionTool;
  /** Its path in the request, e.g. `tools[2].tools[0]`. */
  param: string;
  namespace?: string;
}

/**
 * The function tools of a request: its own and those grouped in `namespace` tools, flattened
 * (a call to one names its namespace in the answer). Built-in tools are dropped. A name two
 * functions share is refused, as a call could not say which one it meant.
 */
function functionTools(tools: NonNullable<ResponsesRequest['tools']>): PlacedTool[] {
  const placed: PlacedTool[] = [];
  tools.forEach((tool, i) => {
    if (isFunctionTool(tool)) placed.push({ tool, param: `tools[${i}]` });
    if (!isNamespaceTool(tool)) return;
    tool.tools.forEach((inner, j) => {
      if (isFunctionTool(inner)) {
        placed.push({ tool: inner, param: `tools[${i}].tools[${j}]`, namespace: tool.name });
      }
    });
  });
  const seen = new Map<string, string>();
  for (const { tool, param } of placed) {
    const earlier = seen.get(tool.name);
    if (earlier !== undefined) {
      throw new LmtabError(
        'invalid_request',
        `Invalid \`${param}.name\`: expected a name no other function tool has (namespaces are flattened into one list), received ${JSON.stringify(tool.name)}, which \`${earlier}\` has too.`,
        { param: `${param}.name` },
      );
    }
    seen.set(tool.name, param);
  }
  return placed;
}

/** Converts `tool_choice`: `required` needs a function tool, a named one must exist. */
function toToolChoice(
  choice: ResponsesRequest['tool_choice'],
  names: string[],
): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'required' && names.length === 0) {
    throw new LmtabError(
      'invalid_request',
      '`tool_choice: "required"` needs at least one tool in `tools`, received none.',
      { param: 'tool_choice' },
    );
  }
  if (typeof choice === 'string') return choice;
  if (!isFunctionChoice(choice)) {
    throw droppedToolForced(
      `the built-in tool of type ${JSON.stringify(choice.type)}`,
      'tool_choice',
    );
  }
  if (!names.includes(choice.name)) {
    throw new LmtabError(
      'invalid_request',
      `Invalid \`tool_choice.name\`: expected one of the tools (${names.map((n) => JSON.stringify(n)).join(', ') || 'none given'}), received ${JSON.stringify(choice.name)}.`,
      { param: 'tool_choice.name' },
    );
  }
  return { name: choice.name };
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
