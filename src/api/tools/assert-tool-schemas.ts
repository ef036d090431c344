import type { ToolChoice } from '../../engine/index.js';
import { LmtabError } from '../../errors/index.js';
import { assertEnforceableSchema } from './assert-enforceable-schema.js';

/** A tool's argument schema as a request gave it, and where it sits in the request. */
export interface ToolSchemaAt {
  name: string;
  /** The tool's `strict` flag, where the protocol has one. */
  strict?: boolean | null;
  /** The JSON Schema of the arguments; absent means any object. */
  schema: unknown;
  /** The schema's field path in the request, e.g. `tools[0].function.parameters`. */
  param: string;
}

/**
 * Refuses a tool schema with keywords the engine cannot enforce only where the request relies on
 * the arguments validating: the tool is `strict`, or `toolChoice` forces it (`required` forces
 * every tool). Any other tool is accepted whole, as OpenAI does without `strict`: the model sees
 * the full schema, and the keywords the grammar cannot express are not enforced; only a schema
 * that would break the engine's conversion (an unknown `type`, a remote `$ref`) is refused.
 */
export function assertToolSchemas(
  tools: readonly ToolSchemaAt[],
  toolChoice: ToolChoice | undefined,
): void {
  for (const tool of tools) {
    if (tool.schema === undefined || tool.schema === null) continue;
    const forced =
      toolChoice === 'required' ||
      (typeof toolChoice === 'object' && toolChoice.name === tool.name);
    if (tool.strict !== true && !forced) {
      assertEnforceableSchema(tool.schema, tool.param, { lenient: true });
      continue;
    }
    try {
      assertEnforceableSchema(tool.schema, tool.param);
    } catch (error) {
      if (!(error instanceof LmtabError)) throw error;
      const why = forced ? 'is forced by `tool_choice`' : 'is `strict`';
      throw new LmtabError(
        'invalid_request',
        `${error.message} The tool ${JSON.stringify(tool.name)} ${why}, so its arguments must validate (a tool neither strict nor forced is accepted, with such keywords left unenforced).`,
        { param: error.param, cause: error },
      );
    }
  }
}
