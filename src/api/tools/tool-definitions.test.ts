import { describe, expect, it } from 'vitest';
import { toolDefinitions, toolRequest } from './tool-definitions.js';

const weather = {
  name: 'weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  param: 'tools[0].function.parameters',
};

describe('toolDefinitions', () => {
  it('keeps name, description, schema and strict; a tool without a schema takes any object', () => {
    expect(
      toolDefinitions([
        { ...weather, strict: true },
        { name: 'now', description: null, parameters: null, strict: null },
      ]),
    ).toEqual([
      {
        name: 'weather',
        description: 'Weather in a city',
        parameters: weather.parameters,
        strict: true,
      },
      { name: 'now', parameters: { type: 'object', properties: {} } },
    ]);
  });
});

describe('toolRequest', () => {
  it('gives the tools and the choice, and only the choice without tools', () => {
    expect(toolRequest([weather], 'required')).toEqual({
      tools: toolDefinitions([weather]),
      toolChoice: 'required',
    });
    expect(toolRequest([], 'none')).toEqual({ toolChoice: 'none' });
    expect(toolRequest([], undefined)).toEqual({});
  });

  it('refuses a forced tool whose schema the engine cannot enforce, naming where it stands', () => {
    const remote = { ...weather, parameters: { $ref: 'https://example.com/schema.json' } };
    expect(() => toolRequest([remote], { name: 'weather' })).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        param: expect.stringContaining('tools[0]'),
      }),
    );
  });
});
