import type { ChatSettings } from './settings/chat-settings.js';
import {
  checkJsonSchemaText,
  checkToolsText,
  type JsonSchemaObject,
  type WireTool,
} from './settings/check-json-settings.js';
import type { ChatTurn } from './conversation.js';

/** A tool call in an assistant message on the wire. */
export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A `/v1/chat/completions` message as the Chat tab sends it. */
export type WireChatMessage =
  | { role: 'system'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string }
  | {
      role: 'user';
      content:
        | string
        | Array<
            | { type: 'text'; text: string }
            | { type: 'image_url'; image_url: { url: string } }
            | { type: 'input_audio'; input_audio: { data: string; format: string } }
          >;
    };

/** The streamed `/v1/chat/completions` body of a Chat tab request. */
export interface ChatRequestBody {
  model: string;
  messages: WireChatMessage[];
  stream: true;
  stream_options: { include_usage: true };
  temperature: number;
  top_p: number;
  top_k: number;
  repeat_penalty: number;
  max_tokens?: number;
  stop?: string[];
  seed?: number;
  response_format?: {
    type: 'json_schema';
    json_schema: { name: string; schema: JsonSchemaObject; strict: true };
  };
  tools?: WireTool[];
  tool_choice?: 'required' | 'none';
}

/**
 * Why the settings cannot be sent as they are (an invalid schema or tool list that is switched
 * on), or an empty string.
 */
export function settingsProblem(settings: ChatSettings): string {
  if (settings.structuredOutput) {
    const schema = checkJsonSchemaText(settings.jsonSchema);
    if (!schema.ok) return `Structured output: ${schema.error} Fix the schema in Chat settings.`;
  }
  if (settings.toolsEnabled) {
    const tools = checkToolsText(settings.tools);
    if (!tools.ok) return `Tools: ${tools.error} Fix the list in Chat settings.`;
  }
  return '';
}

/** An assistant turn's messages: its text and answered calls, then one tool message per result. */
function assistantMessages(turn: ChatTurn): WireChatMessage[] {
  const answered = (turn.toolCalls ?? []).filter((c) => c.result !== undefined);
  if (answered.length === 0) {
    // An answer stopped before its first token has nothing to say.
    return turn.content === '' ? [] : [{ role: 'assistant', content: turn.content }];
  }
  return [
    {
      role: 'assistant',
      content: turn.content === '' ? null : turn.content,
      tool_calls: answered.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      })),
    },
    ...answered.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: c.result! })),
  ];
}

/**
 * Builds the request for the next answer: the system prompt, then every turn that did not fail
 * (images as `image_url` data URIs, answered tool calls with their results), the sampling settings
 * under their OpenAI/llama.cpp names, and the schema and tools when they are switched on. Throws
 * when a switched-on schema or tool list is invalid ({@link settingsProblem} says why first).
 */
export function buildChatRequest(
  model: string,
  settings: ChatSettings,
  turns: readonly ChatTurn[],
): ChatRequestBody {
  const messages: WireChatMessage[] = [];
  if (settings.systemPrompt.trim() !== '') {
    messages.push({ role: 'system', content: settings.systemPrompt });
  }
  for (const turn of turns) {
    if (turn.error !== undefined) continue;
    if (turn.role === 'assistant') {
      messages.push(...assistantMessages(turn));
    } else if (turn.images?.length || turn.audio?.length) {
      messages.push({
        role: 'user',
        content: [
          ...(turn.content !== '' ? [{ type: 'text' as const, text: turn.content }] : []),
          ...(turn.images ?? []).map((url) => ({ type: 'image_url' as const, image_url: { url } })),
          ...(turn.audio ?? []).map(inputAudio),
        ],
      });
    } else {
      messages.push({ role: 'user', content: turn.content });
    }
  }
  const body: ChatRequestBody = {
    model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
    temperature: settings.temperature,
    top_p: settings.topP,
    top_k: settings.topK,
    repeat_penalty: settings.repeatPenalty,
  };
  if (settings.maxTokens !== null) body.max_tokens = settings.maxTokens;
  if (settings.stop.length > 0) body.stop = [...settings.stop];
  if (settings.seed !== null) body.seed = settings.seed;
  if (settings.structuredOutput) {
    const schema = checkJsonSchemaText(settings.jsonSchema);
    if (!schema.ok) throw new Error(settingsProblem(settings));
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: 'chat_answer', schema: schema.value, strict: true },
    };
  }
  if (settings.toolsEnabled) {
    const tools = checkToolsText(settings.tools);
    if (!tools.ok) throw new Error(settingsProblem(settings));
    body.tools = tools.value;
    // `auto` is the API's default: sent only when it is not.
    if (settings.toolChoice !== 'auto') body.tool_choice = settings.toolChoice;
  }
  return body;
}

/** The `input_audio` part of an audio clip's `data:` URI (`data:audio/mpeg;base64,...`). */
function inputAudio(url: string) {
  const comma = url.indexOf(',');
  const type = url.slice('data:'.length, url.indexOf(';'));
  const format =
    type === 'audio/mpeg' || type === 'audio/mp3' ? 'mp3' : type.endsWith('flac') ? 'flac' : 'wav';
  return { type: 'input_audio' as const, input_audio: { data: url.slice(comma + 1), format } };
}
