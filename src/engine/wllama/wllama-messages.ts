import type { ChatMessage } from '../engine.js';
import { prepareImage } from './image-input.js';

/** Chat messages in llama-server's OpenAI shape, tool calls and tool answers included. */
export async function wllamaMessages(messages: ChatMessage[]) {
  let imageIndex = 0;
  return Promise.all(
    messages.map(async (message) => {
      const extra: Record<string, unknown> = {};
      if (message.toolCalls !== undefined && message.toolCalls.length > 0) {
        extra.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      if (message.reasoning !== undefined) extra.reasoning_content = message.reasoning;
      if (message.toolCallId !== undefined) extra.tool_call_id = message.toolCallId;
      if (message.toolName !== undefined) extra.name = message.toolName;
      const onlyText = message.content.every((p) => p.type === 'text');
      if (onlyText) {
        return {
          role: message.role,
          content: message.content.map((p) => (p.type === 'text' ? p.text : '')).join(''),
          ...extra,
        };
      }
      const content = await Promise.all(
        message.content.map(async (part) => {
          if (part.type === 'text') return { type: 'text' as const, text: part.text };
          if (part.type === 'audio') {
            return { type: 'audio' as const, data: part.data.slice().buffer as ArrayBuffer };
          }
          return { type: 'image' as const, data: await prepareImage(part, imageIndex++) };
        }),
      );
      return { role: message.role, content, ...extra };
    }),
  );
}
