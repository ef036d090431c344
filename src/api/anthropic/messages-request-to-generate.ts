import { toolRequest } from '../tools/tool-definitions.js';
import { LmtabError } from '../../errors/index.js';
import type {
  ChatMessage,
  ContentPart,
  GenerateRequest,
  ToolCall,
  ToolChoice,
} from '../../engine/index.js';
import { decodeImage } from '../media/decode-image.js';
import { droppedToolForced } from '../tools/dropped-tool-forced.js';
import { normalizeStop } from '../pipeline/normalize-stop.js';
import { omitUndefined } from '../pipeline/omit-undefined.js';
import { isClearThinkingEdit, isCustomTool } from './messages-request-schema.js';
import type {
  AnthropicContentBlock,
  AnthropicPrompt,
  MessagesRequest,
} from './messages-request-schema.js';

/** Options of {@link anthropicPromptToGenerate}. */
export interface AnthropicToGenerateOptions {
  /** Fetches images given by URL. */
  fetch: typeof globalThis.fetch;
  /** Aborts image fetches. */
  signal?: AbortSignal;
  /** Largest image accepted, in bytes. */
  maxImageBytes: number;
}

/** Converts a `/v1/messages` body to a generate request for `model` (images decoded). */
export async function messagesRequestToGenerate(
  wire: MessagesRequest,
  model: string,
  options: AnthropicToGenerateOptions,
): Promise<GenerateRequest> {
  const request = await anthropicPromptToGenerate(wire, model, options);
  request.sampling = omitUndefined({
    maxTokens: wire.max_tokens,
    temperature: wire.temperature,
    topP: wire.top_p,
    topK: wire.top_k,
    stop: normalizeStop(wire.stop_sequences),
  });
  return request;
}

/** Converts the prompt fields (system, messages, tools, tool choice, thinking); no sampling. */
export async function anthropicPromptToGenerate(
  wire: AnthropicPrompt,
  model: string,
  options: AnthropicToGenerateOptions,
): Promise<GenerateRequest> {
  const messages: ChatMessage[] = [];
  if (wire.system !== undefined) {
    const text =
      typeof wire.system === 'string' ? wire.system : wire.system.map((b) => b.text).join('\n');
    messages.push({ role: 'system', content: [{ type: 'text', text }] });
  }
  const toolNames = new Map<string, string>();
  for (const [i, message] of wire.messages.entries()) {
    const path = `messages[${i}].content`;
    if (typeof message.content === 'string') {
      messages.push({ role: message.role, content: [{ type: 'text', text: message.content }] });
    } else if (message.role === 'system') {
      messages.push(systemMessage(message.content, path));
    } else if (message.role === 'assistant') {
      messages.push(assistantMessage(message.content, path, toolNames));
    } else {
      messages.push(...(await userMessages(message.content, path, toolNames, options)));
    }
  }
  clearThinking(messages, wire.context_management?.edits ?? []);
  const request: GenerateRequest = { model, input: { kind: 'chat', messages }, sampling: {} };
  // Server and Anthropic-defined tools are dropped; forcing one is refused.
  const tools = (wire.tools ?? []).flatMap((tool, i) =>
    isCustomTool(tool) ? [{ ...tool, at: i }] : [],
  );
  const choice = wire.tool_choice;
  const toolChoice =
    choice === undefined
      ? undefined
      : toToolChoice(
          choice,
          tools.map((tool) => tool.name),
          wire.tools ?? [],
        );
  const placed = tools.map((tool) => ({
    ...tool,
    parameters: tool.input_schema,
    param: `tools[${tool.at}].input_schema`,
  }));
  const { tools: definitions } = toolRequest(placed, toolChoice);
  if (definitions !== undefined) request.tools = definitions;
  if (choice !== undefined && toolChoice !== undefined) {
    request.toolChoice = toolChoice;
    if ('disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use !== undefined) {
      request.parallelToolCalls = !choice.disable_parallel_tool_use;
    }
  }
  // Adaptive thinking leaves it to the model, as the template's default does.
  if (wire.thinking !== undefined && wire.thinking.type !== 'adaptive') {
    request.thinking = wire.thinking.type === 'enabled';
  }
  const format = wire.output_config?.format;
  if (format !== undefined && format !== null)
    request.format = { type: 'json', schema: format.schema };
  return request;
}

function toToolChoice(
  choice: NonNullable<AnthropicPrompt['tool_choice']>,
  names: string[],
  given: NonNullable<AnthropicPrompt['tools']>,
): ToolChoice {
  const listed = names.map((n) => JSON.stringify(n)).join(', ') || 'none given';
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      if (names.length === 0) {
        throw new LmtabError(
          'invalid_request',
          '`tool_choice` of type "any" needs at least one tool in `tools`, received none.',
          { param: 'tool_choice' },
        );
      }
      return 'required';
    case 'none':
      return 'none';
    case 'tool': {
      if (names.includes(choice.name)) return { name: choice.name };
      const dropped = given.find((tool) => !isCustomTool(tool) && tool.name === choice.name);
      if (dropped !== undefined) {
        throw droppedToolForced(
          `the tool ${JSON.stringify(choice.name)} of type ${JSON.stringify(dropped.type)}`,
          'tool_choice.name',
        );
      }
      throw new LmtabError(
        'invalid_request',
        `Invalid \`tool_choice.name\`: expected one of the tools (${listed}), received ${JSON.stringify(choice.name)}.`,
        { param: 'tool_choice.name' },
      );
    }
  }
}

/** A `system` message among the turns: text only, kept in place. */
function systemMessage(blocks: AnthropicContentBlock[], path: string): ChatMessage {
  const text = blocks.map((block, j) => {
    if (block.type === 'text') return block.text;
    throw misplaced(block.type, `${path}[${j}]`, 'system', '"text"');
  });
  return { role: 'system', content: [{ type: 'text', text: text.join('\n') }] };
}

/**
 * Applies `clear_thinking_20251015` edits: the reasoning of all but the last `keep` assistant
 * turns that carry some is left out of the prompt (default one turn, as Anthropic has it).
 * Other edits are accepted and not applied.
 */
function clearThinking(messages: ChatMessage[], edits: readonly { type: string }[]): void {
  for (const edit of edits.filter(isClearThinkingEdit)) {
    const keep = edit.keep ?? { type: 'thinking_turns', value: 1 };
    if (keep === 'all' || keep.type === 'all') continue;
    const thinking = messages.filter((m) => m.role === 'assistant' && m.reasoning !== undefined);
    for (const message of thinking.slice(0, Math.max(thinking.length - keep.value, 0))) {
      delete message.reasoning;
    }
  }
}

function assistantMessage(
  blocks: AnthropicContentBlock[],
  path: string,
  toolNames: Map<string, string>,
): ChatMessage {
  let text = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  for (const [j, block] of blocks.entries()) {
    switch (block.type) {
      case 'text':
        text += block.text;
        break;
      case 'thinking':
        reasoning += block.thinking;
        break;
      case 'tool_use':
        toolNames.set(block.id, block.name);
        toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
        break;
      default:
        throw misplaced(
          block.type,
          `${path}[${j}]`,
          'assistant',
          '"text", "thinking" or "tool_use"',
        );
    }
  }
  const message: ChatMessage = {
    role: 'assistant',
    content: text === '' ? [] : [{ type: 'text', text }],
  };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  if (reasoning !== '') message.reasoning = reasoning;
  return message;
}

/** A user turn: its tool results become tool messages (first, as Anthropic orders them). */
async function userMessages(
  blocks: AnthropicContentBlock[],
  path: string,
  toolNames: Map<string, string>,
  options: AnthropicToGenerateOptions,
): Promise<ChatMessage[]> {
  const results: ChatMessage[] = [];
  const content: ContentPart[] = [];
  for (const [j, block] of blocks.entries()) {
    const where = `${path}[${j}]`;
    switch (block.type) {
      case 'text':
        content.push({ type: 'text', text: block.text });
        break;
      case 'image':
        content.push(await decodeBlockImage(block, where, options));
        break;
      case 'tool_result': {
        const text = toolResultText(block, where);
        const name = toolNames.get(block.tool_use_id);
        results.push({
          role: 'tool',
          content: [{ type: 'text', text: block.is_error === true ? `Error: ${text}` : text }],
          toolCallId: block.tool_use_id,
          ...(name === undefined ? {} : { toolName: name }),
        });
        break;
      }
      default:
        throw misplaced(block.type, where, 'user', '"text", "image" or "tool_result"');
    }
  }
  return content.length > 0 || results.length === 0
    ? [...results, { role: 'user', content }]
    : results;
}

function toolResultText(
  block: Extract<AnthropicContentBlock, { type: 'tool_result' }>,
  where: string,
): string {
  const { content } = block;
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, k) => {
      if (part.type === 'text') return part.text;
      throw new LmtabError(
        'invalid_request',
        `Invalid \`${where}.content[${k}]\`: expected a text block (chat templates carry only text in tool results), received an image block.`,
        { param: `${where}.content[${k}]` },
      );
    })
    .join('');
}

async function decodeBlockImage(
  block: Extract<AnthropicContentBlock, { type: 'image' }>,
  where: string,
  options: AnthropicToGenerateOptions,
): Promise<ContentPart> {
  const { source } = block;
  const url =
    source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
  return decodeImage(url, {
    param: `${where}.source`,
    fetch: options.fetch,
    signal: options.signal,
    maxBytes: options.maxImageBytes,
  });
}

function misplaced(type: string, where: string, role: string, expected: string): LmtabError {
  return new LmtabError(
    'invalid_request',
    `Invalid \`${where}.type\`: expected ${expected} in a ${role} message, received "${type}".`,
    { param: `${where}.type` },
  );
}

/** How many images a messages body carries. */
export function countAnthropicImages(wire: AnthropicPrompt): number {
  return wire.messages.reduce(
    (sum, m) =>
      sum + (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'image').length : 0),
    0,
  );
}
