import type { ChatMessage, ContentPart, ToolCall } from '../../engine/index.js';
import { wavFile } from '../media/wav-file.js';
import { realtimeRate } from './realtime-audio.js';
import type { RealtimeItem } from './realtime-answer.js';

/** One item of a session's conversation, and the 24 kHz samples of each `input_audio` part. */
export interface StoredItem {
  item: RealtimeItem;
  /** Samples by content index. */
  audio: Map<number, Int16Array>;
}

/** A conversation as chat messages: instructions first, committed audio as 24 kHz WAV parts. */
export function toChatMessages(instructions: string, input: readonly StoredItem[]): ChatMessage[] {
  const messages: ChatMessage[] =
    instructions === ''
      ? []
      : [{ role: 'system', content: [{ type: 'text', text: instructions }] }];
  for (const { item, audio } of input) {
    if (item.type === 'function_call') {
      const call: ToolCall = {
        id: String(item.call_id),
        name: String(item.name),
        arguments: String(item.arguments),
      };
      const last = messages.at(-1);
      if (last?.role === 'assistant' && last.toolCalls !== undefined) last.toolCalls.push(call);
      else messages.push({ role: 'assistant', content: [], toolCalls: [call] });
      continue;
    }
    if (item.type === 'function_call_output') {
      messages.push({
        role: 'tool',
        content: [{ type: 'text', text: String(item.output) }],
        toolCallId: String(item.call_id),
      });
      continue;
    }
    const role = item.role as ChatMessage['role'];
    const parts = item.content as Record<string, unknown>[];
    const content: ContentPart[] = parts.flatMap((part, i): ContentPart[] => {
      switch (part.type) {
        case 'input_audio': {
          const samples = audio.get(i);
          return samples === undefined
            ? []
            : [
                {
                  type: 'audio',
                  data: wavFile(pcm16Bytes(samples), realtimeRate),
                  format: 'wav',
                },
              ];
        }
        case 'output_audio':
          return typeof part.transcript === 'string'
            ? [{ type: 'text', text: part.transcript }]
            : [];
        default:
          return [{ type: 'text', text: String(part.text ?? '') }];
      }
    });
    messages.push({ role, content });
  }
  return messages;
}

/** The bytes of 16-bit samples (little-endian, as the platform stores them here). */
function pcm16Bytes(samples: Int16Array): Uint8Array {
  return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
}
