import { describe, expect, it } from 'vitest';
import { buildChatRequest, settingsProblem } from './build-chat-request.js';
import { defaultChatSettings, exampleJsonSchema } from './settings/chat-settings.js';
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

  it('sends audio clips as input_audio parts, with the format their data: URI names', () => {
    const audio = [
      'data:audio/wav;base64,UklG',
      'data:audio/mpeg;base64,SUQz',
      'data:audio/flac;base64,ZkxhQw==',
    ];
    const turns = [turn('user', 'Listen', { audio })];
    expect(buildChatRequest('m', defaultChatSettings, turns).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Listen' },
          { type: 'input_audio', input_audio: { data: 'UklG', format: 'wav' } },
          { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } },
          { type: 'input_audio', input_audio: { data: 'ZkxhQw==', format: 'flac' } },
        ],
      },
    ]);
  });

  it('sends a switched-on schema as response_format json_schema, strict', () => {
    const settings = { ...defaultChatSettings, structuredOutput: true };
    const body = buildChatRequest('m', settings, [turn('user', 'Rate it')]);
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'chat_answer', schema: JSON.parse(exampleJsonSchema), strict: true },
    });
    expect(body.tools).toBeUndefined();
  });

  it('leaves a schema that is switched off out, even when it is invalid', () => {
    const settings = { ...defaultChatSettings, jsonSchema: '{ not json' };
    expect(settingsProblem(settings)).toBe('');
    expect(buildChatRequest('m', settings, [turn('user', 'Hi')]).response_format).toBeUndefined();
  });

  it('refuses to build a request with an invalid schema or tool list, saying why', () => {
    const schema = { ...defaultChatSettings, structuredOutput: true, jsonSchema: '{"type": 3}' };
    expect(settingsProblem(schema)).toMatch(
      /^Structured output: \/type: expected one of .* number 3\./,
    );
    expect(() => buildChatRequest('m', schema, [turn('user', 'Hi')])).toThrow(
      settingsProblem(schema),
    );
    const tools = { ...defaultChatSettings, toolsEnabled: true, tools: '[]' };
    expect(settingsProblem(tools)).toBe(
      'Tools: The list is empty: define at least one function. Fix the list in Chat settings.',
    );
    expect(() => buildChatRequest('m', tools, [turn('user', 'Hi')])).toThrow(/^Tools:/);
  });

  it('sends tools, answered calls with their results, and leaves unanswered calls out', () => {
    const settings = { ...defaultChatSettings, toolsEnabled: true };
    const turns = [
      turn('user', 'Weather in Paris and Rome?'),
      turn('assistant', '', {
        toolCalls: [
          { id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}', result: '{"temp":21}' },
          { id: 'c2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      }),
      turn('assistant', 'Paris is at 21 degrees.', {
        toolCalls: [{ id: 'c3', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      }),
      turn('assistant', 'Let me check.', {
        toolCalls: [{ id: 'c4', name: 'now', arguments: '{}', result: '12:00' }],
      }),
    ];
    const body = buildChatRequest('m', settings, turns);
    expect(body.tools?.map((t) => t.function.name)).toEqual(['get_weather']);
    expect(body.tool_choice).toBeUndefined();
    expect(buildChatRequest('m', { ...settings, toolChoice: 'required' }, turns).tool_choice).toBe(
      'required',
    );
    expect(
      buildChatRequest('m', { ...defaultChatSettings, toolChoice: 'required' }, turns).tool_choice,
    ).toBeUndefined();
    expect(body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"temp":21}' },
      { role: 'assistant', content: 'Paris is at 21 degrees.' },
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [{ id: 'c4', type: 'function', function: { name: 'now', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c4', content: '12:00' },
    ]);
  });
});
