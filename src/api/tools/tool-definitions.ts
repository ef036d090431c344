import type {
  GenerateRequest,
  JsonSchema,
  ToolChoice,
  ToolDefinition,
} from '../../engine/index.js';
import { assertToolSchemas } from './assert-tool-schemas.js';
import { toFunctionToolChoice } from './function-tool-choice.js';

/** A function tool as a protocol gives it, and where its argument schema sits in the request. */
export interface WireFunctionTool {
  name: string;
  description?: string | null;
  /** The JSON Schema of the arguments; absent means any object. */
  parameters?: JsonSchema | null;
  /** OpenAI's `strict`, where the protocol has it. */
  strict?: boolean | null;
  /** The schema's field path in the request, e.g. `tools[0].function.parameters`. */
  param: string;
}

/**
 * The one mapping of every protocol's function tools to the engine's tool definitions: a tool
 * without a schema takes any object, and a `description` or `strict` that is absent or null is
 * left out.
 */
export function toolDefinitions(
  tools: readonly Omit<WireFunctionTool, 'param'>[],
): ToolDefinition[] {
  return tools.map((tool) => ({
    name: tool.name,
    ...(tool.description == null ? {} : { description: tool.description }),
    parameters: tool.parameters ?? { type: 'object', properties: {} },
    ...(tool.strict == null ? {} : { strict: tool.strict }),
  }));
}

/**
 * A request's function tools and its (already converted) tool choice as the engine takes them,
 * after refusing a schema the request relies on that the engine cannot enforce
 * ({@link assertToolSchemas}). Without tools, only the choice.
 */
export function toolRequest(
  tools: readonly WireFunctionTool[],
  toolChoice: ToolChoice | undefined,
): Pick<GenerateRequest, 'tools' | 'toolChoice'> {
  assertToolSchemas(
    tools.map((tool) => ({
      name: tool.name,
      strict: tool.strict,
      schema: tool.parameters,
      param: tool.param,
    })),
    toolChoice,
  );
  return {
    ...(tools.length > 0 && { tools: toolDefinitions(tools) }),
    ...(toolChoice !== undefined && { toolChoice }),
  };
}

/**
 * {@link toolRequest} for the chat shape of function tools (`{"type": "function", "function":
 * {...}}`, OpenAI's, which Ollama takes too), each with its index in the request's `tools`, and the
 * chat `tool_choice`.
 */
export function chatToolRequest(
  tools: readonly { function: Omit<WireFunctionTool, 'param'>; at: number }[],
  choice: Parameters<typeof toFunctionToolChoice>[0],
): Pick<GenerateRequest, 'tools' | 'toolChoice'> {
  return toolRequest(
    tools.map((tool) => ({ ...tool.function, param: `tools[${tool.at}].function.parameters` })),
    toFunctionToolChoice(
      choice,
      tools.map((tool) => tool.function.name),
    ),
  );
}
