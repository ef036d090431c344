import { LmtabError } from '../../errors/index.js';

/** The longest context lmtab loads in a tab (tokens); KV memory beyond it fails in wasm32. */
export const maxContextLength = 262_144;

const n = (value: number) => value.toLocaleString('en');

/**
 * Refuses a context length (`num_ctx`) beyond the model's training context or lmtab's limit for a
 * tab: without this, 1e9 aborts the engine mid-load.
 */
export function assertContextLength(model: string, wanted: number, trained?: number): void {
  const limit = Math.min(trained ?? maxContextLength, maxContextLength);
  if (wanted <= limit) return;
  throw new LmtabError(
    'invalid_request',
    `The context length (num_ctx) ${n(wanted)} is beyond what the engine can hold for ${model}: at most ${n(limit)} tokens (${limit === trained ? "the model's training context" : "lmtab's limit for a browser tab"}).`,
    { param: 'num_ctx' },
  );
}

/** The largest answer limit llama.cpp can read: it takes `n_predict` as a 32-bit integer. */
export const maxAnswerLimit = 2_147_483_647;

/**
 * Refuses only an answer limit llama.cpp cannot read (1e12 would wrap to a negative number). A
 * limit beyond the loaded context is a ceiling, as clients that do not know the model send
 * (Claude Code's 32,000): the answer runs until the context is full and ends with `length`, since
 * llama.cpp (context shift off) and web-llm stop there.
 */
export function assertAnswerLimit(model: string, maxTokens: number | undefined, context: number) {
  if (maxTokens === undefined || maxTokens <= maxAnswerLimit) return;
  throw new LmtabError(
    'invalid_request',
    `The answer limit (max_tokens, max_completion_tokens or num_predict) is ${n(maxTokens)} tokens, more than the engine can read (at most ${n(maxAnswerLimit)}); ${model} is loaded with ${n(context)} tokens of context, so any limit from ${n(context)} up lets the answer run until the context is full.`,
    { param: 'max_tokens' },
  );
}

/**
 * What a prompt over the context is to the client: a 400 `context_length_exceeded` stating the
 * prompt's tokens (from llama.cpp's message, "request (N tokens) exceeds the available context
 * size (M tokens)") and the loaded context.
 */
export function contextExceeded(
  model: string,
  context: number,
  engineMessage: string,
  cause?: unknown,
): LmtabError {
  const promptTokens = promptTokensOf(engineMessage);
  const prompt =
    promptTokens === undefined
      ? 'The prompt does not fit the context'
      : `The prompt is ${n(Number(promptTokens))} tokens, which does not fit the context`;
  return new LmtabError(
    'context_length_exceeded',
    `${prompt}: ${model} is loaded with ${n(context)} tokens of context, which must hold the prompt and at least one token of the answer (the engine said: ${engineMessage}). Shorten the conversation, or load the model with a longer context (num_ctx, or Developer -> Load settings).`,
    { param: 'messages', cause },
  );
}

/**
 * A prompt that did not fit the loaded context, before any token of the answer: the engine may
 * reload the model with a longer context and try again ({@link raisedContext}).
 */
export class PromptOverContext extends Error {
  constructor(
    /** The prompt's tokens, as llama.cpp counted them. */
    readonly promptTokens: number,
    /** The context the model was loaded with. */
    readonly loaded: number,
    /** The error for the client, should no longer context be possible. */
    readonly failure: LmtabError,
  ) {
    super(failure.message);
  }
}

/** The prompt's tokens in llama.cpp's "request (N tokens) exceeds ..." message, if it says. */
export function promptTokensOf(engineMessage: string): number | undefined {
  const tokens = /request \((\d+) tokens\)/.exec(engineMessage)?.[1];
  return tokens === undefined ? undefined : Number(tokens);
}

/**
 * The context to reload a model with for a prompt of `promptTokens`: room for the prompt and an
 * answer of up to 4,096 tokens (fewer when `maxTokens` asks for fewer), as a power of two, at least
 * double the loaded one, at most the training context (and lmtab's limit). Undefined where even
 * the training context cannot hold the prompt and one token.
 */
export function raisedContext(
  promptTokens: number,
  loaded: number,
  maxTokens: number | undefined,
  trained?: number,
): number | undefined {
  const limit = Math.min(trained ?? maxContextLength, maxContextLength);
  if (promptTokens + 1 > limit) return undefined;
  const answerRoom = Math.max(1, Math.min(maxTokens ?? 4096, 4096));
  const wanted = Math.max(2 * loaded, 2 ** Math.ceil(Math.log2(promptTokens + answerRoom)));
  return Math.min(wanted, limit);
}
