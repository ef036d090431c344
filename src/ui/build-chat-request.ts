import type { ChatSettings } from './chat-settings.js';
import type { ChatTurn } from './conversation.js';

/** A `/v1/chat/completions` message as the Chat tab sends it. */
export type WireChatMessage =
  | { role: 'system' | 'assistant'; content: string }
  | {
      role: 'user';
      content:
        | string
        | Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }>;
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
}

/**
 * Builds the request for the next answer: the system prompt, then every turn that did not fail
 * (images as `image_url` data URIs), and the sampling settings under their OpenAI/llama.cpp names.
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
      // An answer stopped before its first token has nothing to say.
      if (turn.content !== '') messages.push({ role: 'assistant', content: turn.content });
    } else if (turn.images?.length) {
      messages.push({
        role: 'user',
        content: [
          ...(turn.content !== '' ? [{ type: 'text' as const, text: turn.content }] : []),
          ...turn.images.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
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
  return body;
}
