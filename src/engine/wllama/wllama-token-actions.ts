import type { Wllama } from '@wllama/wllama/esm/index.js';
import { LmtabError } from '../../errors/index.js';
import { wllamaProxy } from '../wllama-internals.js';

/** The token actions of lmtab's CPU build (wasm/glue/token-actions.h), by llama-server's route. */
export type TokenAction = 'tokenize' | 'detokenize' | 'apply_template';

/** Which request field a refusal of each action is about. */
const actionParam: Record<TokenAction, string> = {
  tokenize: 'content',
  detokenize: 'tokens',
  apply_template: 'messages',
};

/**
 * Runs one of lmtab's CPU build's token actions on a loaded instance and returns its answer.
 *
 * The build's glue takes the route's body as a completion request's `data_json` and answers at
 * once with a result (wllama 3.13's JavaScript serializes only the messages it knows). Only lmtab's
 * CPU build has these actions: wllama's stock glue aborts its worker on an action it does not know,
 * so callers check the build first. A refusal by llama.cpp (a token id outside the vocabulary, a
 * message the chat template cannot take) is the request's fault, and says so.
 */
export async function wllamaTokenAction(
  wllama: Wllama,
  action: TokenAction,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const answer = await wllamaProxy(wllama).wllamaAction(action, {
    _name: 'cmpl_req',
    is_chat: action === 'apply_template',
    is_asr: false,
    data_json: JSON.stringify(body),
    files: [],
  });
  const data = typeof answer.data_json === 'string' ? answer.data_json : '';
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(data) as Record<string, unknown>;
  } catch {
    throw new LmtabError(
      'engine_failure',
      `The engine's ${action} answered something that is not JSON: expected an object, received ${JSON.stringify(data.slice(0, 80))}.`,
    );
  }
  if (answer.is_error === true) {
    const message = typeof value.message === 'string' ? value.message : 'no reason given';
    throw new LmtabError(
      'invalid_request',
      `${actionParam[action]}: the model's tokenizer refused it: ${message}.`,
      { param: actionParam[action] },
    );
  }
  return value;
}

/** Bytes as the glue sends them: an array of numbers from 0 to 255. */
export function glueBytes(value: unknown): Uint8Array {
  if (!Array.isArray(value) || !value.every((b) => Number.isInteger(b) && b >= 0 && b < 256)) {
    throw new LmtabError(
      'engine_failure',
      `The engine's token action answered bytes that are not bytes: expected an array of numbers from 0 to 255, received ${JSON.stringify(value)?.slice(0, 80)}.`,
    );
  }
  return Uint8Array.from(value as number[]);
}
