import { chatToolRequest } from '../../tools/tool-definitions.js';
import type { ChatMessage, GenerateRequest } from '../../../engine/index.js';
import { decodeImage } from '../../media/decode-image.js';
import type { ChatWireRequest } from './chat-request-schema.js';
import { optionsToSampling } from '../../pipeline/options-to-sampling.js';
import { applyStructuredFields } from './structured-fields.js';

/** Options of {@link chatRequestToGenerate}. */
export interface ChatRequestToGenerateOptions {
  /** Largest image accepted, in bytes. */
  maxImageBytes: number;
}

/** Converts an `/api/chat` body to a generate request for `model` (images before the text). */
export async function chatRequestToGenerate(
  wire: ChatWireRequest,
  model: string,
  options: ChatRequestToGenerateOptions,
): Promise<GenerateRequest> {
  const { sampling, contextLength } = optionsToSampling(wire.options ?? {});
  const messages = await Promise.all(
    (wire.messages ?? []).map(async (message, i): Promise<ChatMessage> => {
      const images = await Promise.all(
        (message.images ?? []).map((image, k) =>
          decodeImage(image, {
            param: `messages[${i}].images[${k}]`,
            bareBase64: true,
            maxBytes: options.maxImageBytes,
          }),
        ),
      );
      const converted: ChatMessage = {
        role: message.role,
        content: [...images, { type: 'text', text: message.content ?? '' }],
      };
      const calls = message.tool_calls ?? [];
      // Ollama's calls carry no id: each gets one, and a tool answer names its tool instead.
      if (calls.length > 0) {
        converted.toolCalls = calls.map((call, k) => ({
          id: `call_${i}_${k}`,
          name: call.function.name,
          arguments:
            typeof call.function.arguments === 'string'
              ? call.function.arguments
              : JSON.stringify(call.function.arguments),
        }));
      }
      if (message.role === 'tool' && message.tool_name != null) {
        converted.toolName = message.tool_name;
      }
      if (message.thinking != null && message.role === 'assistant') {
        converted.reasoning = message.thinking;
      }
      return converted;
    }),
  );
  linkToolAnswers(messages);
  const request: GenerateRequest = { model, input: { kind: 'chat', messages }, sampling };
  if (contextLength !== undefined) request.contextLength = contextLength;
  const tools = (wire.tools ?? []).map((tool, at) => ({ ...tool, at }));
  Object.assign(request, chatToolRequest(tools, wire.tool_choice));
  applyStructuredFields(wire, request);
  return request;
}

/**
 * Gives each tool answer the id of the call it answers: the earliest unanswered call of its tool
 * (or, without `tool_name`, the earliest unanswered call) in the assistant turn before it.
 */
function linkToolAnswers(messages: ChatMessage[]): void {
  let pending: { id: string; name: string }[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      pending = (message.toolCalls ?? []).map(({ id, name }) => ({ id, name }));
    } else if (message.role === 'tool') {
      const at = pending.findIndex(
        (call) => message.toolName === undefined || call.name === message.toolName,
      );
      const call = at >= 0 ? pending.splice(at, 1)[0] : undefined;
      if (call !== undefined) {
        message.toolCallId = call.id;
        message.toolName ??= call.name;
      }
    }
  }
}

/** How many images an `/api/chat` body carries. */
export function countChatImages(wire: ChatWireRequest): number {
  return (wire.messages ?? []).reduce((sum, m) => sum + (m.images?.length ?? 0), 0);
}
