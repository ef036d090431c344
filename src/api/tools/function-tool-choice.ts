import { z } from 'zod';
import type { ToolChoice } from '../../engine/index.js';
import { LmtabError } from '../../errors/index.js';
import { droppedToolForced } from './dropped-tool-forced.js';

const namedFunctionSchema = z.object({
  type: z.literal('function'),
  function: z.object({ name: z.string() }),
});

/**
 * `tool_choice` in Chat Completions' spelling, which `/api/chat` takes too (ollama-ai-provider-v2
 * sends it). A choice of another type (`custom`) is read, then refused as forcing a dropped tool.
 */
export const functionToolChoiceSchema = z.union(
  [
    z.enum(['auto', 'none', 'required']),
    namedFunctionSchema,
    z.looseObject({
      type: z.string().refine((type) => type !== 'function' && type !== 'allowed_tools'),
    }),
  ],
  { error: '"auto", "none", "required" or {"type": "function", "function": {"name": ...}}' },
);

type FunctionToolChoiceWire = z.output<typeof functionToolChoiceSchema>;

/**
 * Converts a validated `tool_choice` given the names of the request's function tools: `required`
 * needs one, a named function must be one of them, any other type forces a tool lmtab drops.
 */
export function toFunctionToolChoice(
  choice: FunctionToolChoiceWire | null | undefined,
  names: readonly string[],
): ToolChoice | undefined {
  if (choice == null) return undefined;
  if (typeof choice === 'string') {
    if (choice === 'required' && names.length === 0) {
      throw new LmtabError(
        'invalid_request',
        '`tool_choice: "required"` needs at least one tool in `tools`, received none.',
        { param: 'tool_choice' },
      );
    }
    return choice;
  }
  const named = namedFunctionSchema.safeParse(choice);
  if (!named.success)
    throw droppedToolForced(`a tool of type ${JSON.stringify(choice.type)}`, 'tool_choice');
  const name = named.data.function.name;
  if (!names.includes(name)) {
    throw new LmtabError(
      'invalid_request',
      `Invalid \`tool_choice.function.name\`: expected one of the tools (${names.map((n) => JSON.stringify(n)).join(', ') || 'none given'}), received ${JSON.stringify(name)}.`,
      { param: 'tool_choice.function.name' },
    );
  }
  return { name };
}
