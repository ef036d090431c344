/**
 * Arguments of the specs' `get_weather` tool: bounded values, so that even random weights finish a
 * call within the token limit. One copy for the browser specs and the WebGPU suite.
 */
export const weatherParameters = {
  type: 'object',
  properties: {
    city: { type: 'string', enum: ['Paris', 'Oslo', 'Lima'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
  required: ['city', 'days'],
  additionalProperties: false,
};
