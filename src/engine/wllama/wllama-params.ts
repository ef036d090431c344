import type { GenerateRequest, ToolDefinition } from '../engine.js';
import { templateThinks } from '../embedding-model.js';
import { samplingFields } from '../sampling-fields.js';
import { forcedCallSchema } from './forced-tool-call.js';
import { VALID_UTF8_GRAMMAR } from './utf8-guard.js';

/** What the loaded model's vocabulary offers to the request builder. */
export interface WllamaVocabularyFacts {
  /** Token ids that would make the output malformed UTF-8 (see utf8-guard.ts); banned always. */
  unsafeTokens: number[];
  /**
   * Id of the single token that opens a tool call in the model's chat format (LFM2's
   * `<|tool_call_start|>`, Hermes' `<tool_call>`), when the vocabulary has one.
   */
  toolCallStart?: number;
  /**
   * Id of `<think>` when the vocabulary has it but the chat template does not think: such a model
   * is never asked to think, so the token is banned in chats (llama.cpp would take what follows it
   * for reasoning and leave the answer empty).
   */
  unusedThinkStart?: number;
  /**
   * Tokens whose text starts inside a UTF-8 character (on wllama's stock build: any token that is
   * not whole characters); banned when logprobs are asked for, as wllama cannot serialize them as
   * listed alternatives (see utf8-guard.ts).
   */
  continuationTokens?: number[];
}

/** Whether a request's tool choice forces a call (`required`, or a named tool that exists). */
export function forcesToolCall(request: GenerateRequest): boolean {
  const tools = request.input.kind === 'chat' ? (request.tools ?? []) : [];
  const choice = request.toolChoice ?? 'auto';
  if (choice === 'required') return tools.length > 0;
  return typeof choice === 'object' && tools.some((tool) => tool.name === choice.name);
}

/** Tokens that open a tool call in the chat formats llama.cpp parses, by family. */
export const toolCallStartTokens = ['<|tool_call_start|>', '<tool_call>'] as const;

/** The id of the first of {@link toolCallStartTokens} in a vocabulary, if any. */
export function findToolCallStart(tokens: unknown): number | undefined {
  if (!Array.isArray(tokens)) return undefined;
  for (const wanted of toolCallStartTokens) {
    const id = tokens.indexOf(wanted);
    if (id >= 0) return id;
  }
  return undefined;
}

/** The id of `<think>` in a vocabulary whose chat template does not think, if any. */
export function findUnusedThinkStart(tokens: unknown, template: string): number | undefined {
  if (!Array.isArray(tokens) || templateThinks(template)) return undefined;
  const id = tokens.indexOf('<think>');
  return id >= 0 ? id : undefined;
}

function wireTool(tool: ToolDefinition) {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters,
      ...(tool.strict === undefined ? {} : { strict: tool.strict }),
    },
  };
}

/**
 * The llama-server request body (minus messages or prompt) for one generate request.
 *
 * - Free text carries {@link VALID_UTF8_GRAMMAR}; a JSON schema or a tool-call grammar replaces it
 *   (llama.cpp refuses a custom grammar with tools, and a grammar would win over a schema). Their
 *   string rules use the same code-point classes, so they reject malformed UTF-8 the same way; the
 *   unsafe lead-byte tokens stay banned in every case.
 * - A forced call (`required`, or a named tool, which llama.cpp would treat as `auto`) sends the
 *   tools for the template with `tool_choice: "none"` and the call's JSON Schema as the response
 *   format (see forced-tool-call.ts); the engine reads the call from that JSON.
 * - A chat without tools, and `none`, ban the call-opening token, so no call text leaks into the
 *   answer; a chat with a model that does not think bans `<think>`.
 * - Stop strings ask for llama.cpp's verbose result, which names the one that ended the answer.
 * - `logprobs`: llama.cpp lists alternatives only when asked for at least one; they are taken
 *   after sampling, so that banned tokens are never listed.
 */
export function wllamaParams(
  request: GenerateRequest,
  vocabulary: WllamaVocabularyFacts,
): Record<string, unknown> {
  const chat = request.input.kind === 'chat';
  const tools = chat ? (request.tools ?? []) : [];
  const choice = request.toolChoice ?? 'auto';
  const forced = forcesToolCall(request);
  const banned = [...vocabulary.unsafeTokens];
  const { toolCallStart, unusedThinkStart } = vocabulary;
  if (chat && toolCallStart !== undefined && (tools.length === 0 || forced || choice === 'none')) {
    banned.push(toolCallStart);
  }
  if (chat && unusedThinkStart !== undefined) banned.push(unusedThinkStart);
  if (request.logprobs !== undefined) banned.push(...(vocabulary.continuationTokens ?? []));
  const params: Record<string, unknown> = {
    ...samplingFields(request.sampling),
    // Reuse the KV cache of the longest matching prefix: later chat turns skip re-processing.
    cache_prompt: true,
    logit_bias: banned.map((id) => [id, false]),
  };
  let format = request.format;
  if (tools.length > 0) {
    params.tools = tools.map(wireTool);
    params.tool_choice = forced || choice === 'none' ? 'none' : 'auto';
    if (request.parallelToolCalls !== undefined) {
      params.parallel_tool_calls = request.parallelToolCalls;
    }
    if (forced) {
      const named = typeof choice === 'object' ? choice.name : undefined;
      const callable = named === undefined ? tools : tools.filter((tool) => tool.name === named);
      format = { type: 'json', schema: forcedCallSchema(callable) };
    }
  }
  if (format !== undefined) {
    if (chat) {
      params.response_format =
        format.schema === undefined
          ? { type: 'json_object' }
          : { type: 'json_schema', json_schema: { name: 'answer', schema: format.schema } };
    } else {
      params.json_schema = format.schema ?? {};
    }
  } else if (tools.length === 0 || choice === 'none') {
    params.grammar = VALID_UTF8_GRAMMAR;
  }
  if (request.logprobs !== undefined) {
    const top = Math.max(request.logprobs.top, 1);
    params.post_sampling_probs = true;
    if (chat) {
      params.logprobs = true;
      params.top_logprobs = top;
    } else {
      params.n_probs = top;
    }
  }
  // llama.cpp names the stop string that ended an answer only in its verbose result.
  if (request.sampling.stop?.length) params.verbose = true;
  if (chat && request.thinking !== undefined) {
    params.chat_template_kwargs = { enable_thinking: request.thinking };
  }
  for (const key of Object.keys(params)) if (params[key] === undefined) delete params[key];
  return params;
}
