import { describe, expect, it } from 'vitest';
import { ForcedToolCallReader, forcedCallSchema } from './forced-tool-call.js';

describe('forcedCallSchema', () => {
  it('puts the name first, then the arguments, for one tool or any of several', () => {
    const one = forcedCallSchema([{ name: 'a', parameters: { type: 'object' } }]);
    expect(Object.keys((one as { properties: object }).properties)).toEqual(['name', 'arguments']);
    const two = forcedCallSchema([
      { name: 'a', parameters: { type: 'object' } },
      { name: 'b', parameters: { type: 'object' } },
    ]);
    expect((two as { anyOf: unknown[] }).anyOf).toHaveLength(2);
  });
});

describe('ForcedToolCallReader', () => {
  it('streams the id and name once known, then the arguments up to their closing brace', () => {
    const reader = new ForcedToolCallReader('call_1');
    const pieces = [
      '{ "na',
      'me" : "get_',
      'weather",\n "arguments" :',
      ' {"city": "P}a',
      'ris", "n": [1]}',
      '\n }',
    ];
    const events = pieces.flatMap((piece) => reader.push(piece));
    expect(events[0]).toEqual({
      type: 'tool_call',
      index: 0,
      id: 'call_1',
      name: 'get_weather',
      argumentsDelta: '',
    });
    const args = events
      .slice(1)
      .map((e) => (e.type === 'tool_call' ? e.argumentsDelta : ''))
      .join('');
    expect(JSON.parse(args)).toEqual({ city: 'P}aris', n: [1] });
    expect(args).toBe('{"city": "P}aris", "n": [1]}');
  });
});
