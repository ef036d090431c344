import type { GenerateEvent, JsonSchema, ToolDefinition } from '../engine.js';

/**
 * The JSON Schema of one forced call: `{"name": ..., "arguments": {...}}` for one of `tools`.
 *
 * Why lmtab constrains forced calls itself: llama.cpp's LFM2 tool grammar (python-style
 * `name(arg=value)`) checks argument names but not their values against `parameters`, and its
 * `required` grammar admits free text before the call. A JSON Schema grammar, non-lazy, makes the
 * call from the first token with arguments that validate. The name comes first (llama.cpp keeps
 * the declared property order), so a stream can say which function is called before its arguments.
 */
export function forcedCallSchema(tools: readonly ToolDefinition[]): JsonSchema {
  const alternatives = tools.map((tool) => ({
    type: 'object',
    properties: { name: { const: tool.name }, arguments: tool.parameters },
    required: ['name', 'arguments'],
    additionalProperties: false,
  }));
  return alternatives.length === 1 ? alternatives[0]! : { anyOf: alternatives };
}

const namePattern = /"name"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"arguments"\s*:\s*/;

/**
 * Turns the streamed JSON text of a forced call (see {@link forcedCallSchema}) into `tool_call`
 * events: the id and name as soon as the name is complete, then the arguments' JSON text piece by
 * piece, up to the end of the arguments object.
 */
export class ForcedToolCallReader {
  private buffer = '';
  private started = false;
  private finished = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private argumentsBegun = false;

  constructor(private readonly id: string) {}

  /** The events that a new piece of the answer's text completes. */
  push(text: string): GenerateEvent[] {
    if (this.finished) return [];
    if (!this.started) {
      this.buffer += text;
      const match = namePattern.exec(this.buffer);
      if (match === null) return [];
      this.started = true;
      const name = JSON.parse(match[1]!) as string;
      const rest = this.buffer.slice(match.index + match[0].length);
      this.buffer = '';
      return [
        { type: 'tool_call', index: 0, id: this.id, name, argumentsDelta: '' },
        ...this.argumentEvents(rest),
      ];
    }
    return this.argumentEvents(text);
  }

  private argumentEvents(text: string): GenerateEvent[] {
    // The grammar allows whitespace before the arguments object: it is no part of them.
    if (!this.argumentsBegun) {
      text = text.trimStart();
      if (text === '') return [];
      this.argumentsBegun = true;
    }
    let end = text.length;
    for (let i = 0; i < text.length; i++) {
      const char = text[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (char === '\\') this.escaped = true;
        else if (char === '"') this.inString = false;
      } else if (char === '"') {
        this.inString = true;
      } else if (char === '{' || char === '[') {
        this.depth += 1;
      } else if (char === '}' || char === ']') {
        this.depth -= 1;
        if (this.depth === 0) {
          end = i + 1;
          this.finished = true;
          break;
        }
      }
    }
    const piece = text.slice(0, end);
    return piece === '' ? [] : [{ type: 'tool_call', index: 0, argumentsDelta: piece }];
  }
}
