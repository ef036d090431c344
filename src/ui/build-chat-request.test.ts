import { describe, expect, it } from 'vitest';
import { buildChatRequest } from './build-chat-request.js';
import { defaultChatSettings } from './chat-settings.js';
import type { ChatTurn } from './conversation.js';

const turn = (
  role: ChatTurn['role'],
  content: string,
  extra: Partial<ChatTurn> = {},
): ChatTurn => ({
  id: `${role}-${content}`,
  role,
  content,
  ...extra,
});

describe('buildChatRequest', () => {
  it('sends the defaults under their wire names and leaves max_tokens, stop and seed out', () => {
    expect(buildChatRequest('m', defaultChatSettings, [turn('user', 'Hi')])).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 1,
      top_p: 1,
      top_k: 40,
      repeat_penalty: 1,
    });
  });

  it('keeps meaningful zeros and sends the system prompt, max_tokens and stop', () => {
    const settings = {
      ...defaultChatSettings,
      systemPrompt: 'Be brief.',
      temperature: 0,
      topK: 0,
      maxTokens: 0,
      stop: ['\n\n', 'END'],
      seed: 0,
    };
    const body = buildChatRequest('m', settings, [turn('user', 'Hi')]);
    expect(body).toMatchObject({
      temperature: 0,
      top_k: 0,
      max_tokens: 0,
      stop: ['\n\n', 'END'],
      seed: 0,
    });
    expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
  });

  it('skips failed and empty answers and sends images as image_url parts', () => {
    const turns = [
      turn('user', 'What is this?', { images: ['data:image/png;base64,AAAA'] }),
      turn('assistant', 'half an answer', { error: 'engine failed' }),
      turn('assistant', ''),
      turn('user', '', { images: ['data:image/jpeg;base64,BBBB'] }),
      turn('assistant', 'A square.'),
    ];
    expect(buildChatRequest('m', defaultChatSettings, turns).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,BBBB' } }],
      },
      { role: 'assistant', content: 'A square.' },
    ]);
  });
});
