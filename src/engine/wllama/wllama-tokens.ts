import { WllamaAbortError, WllamaRuntimeError, type Wllama } from '@wllama/wllama/esm/index.js';
import { LmtabError, toLmtabError } from '../../errors/index.js';
import type {
  GenerateOptions,
  GenerateRequest,
  DetokenizeRequest,
  TokenizeRequest,
  TokenizeResult,
} from '../engine.js';
import { buildNames } from '../builds/cpu-build.js';
import { wllamaParams } from './wllama-params.js';
import { glueBytes, wllamaTokenAction } from './wllama-token-actions.js';
import { loadVocabTokenizer } from './vocab-tokenizer.js';
import { wllamaMessages } from './wllama-messages.js';
import type { Resident, WllamaRuntime } from './wllama-runtime.js';

/**
 * llama-server's `/tokenize`, `/detokenize` and `/apply-template` on the wllama engine, through
 * the model's own instance or a vocabulary-only one beside it.
 */
export function createWllamaTokens(runtime: WllamaRuntime) {
  const { options, residency } = runtime;

  /**
   * Runs `use` with the instance that answers a model's token actions, loading the model first: the
   * model's own instance on lmtab's CPU build, which has them (wasm/glue/token-actions.h); beside a
   * load on wllama's stock build (WebGPU, or memory64 past 4 GiB), which has none and aborts its
   * worker on an action it does not know, a vocabulary-only instance of the CPU build.
   */
  async function withTokenizer<T>(
    model: string,
    signal: AbortSignal | undefined,
    use: (tokenizer: Wllama, current: Resident) => Promise<T>,
  ): Promise<T> {
    const { current } = await residency.acquire(model, undefined, signal);
    try {
      return await use(await tokenizerOf(current), current);
    } catch (error) {
      if (error instanceof WllamaAbortError || signal?.aborted) {
        throw new LmtabError('aborted', 'The request was aborted by the client.', { cause: error });
      }
      // As in generate(): wllama rejected every pending task; the next request gets a fresh instance.
      if (error instanceof WllamaRuntimeError && current.info.build === buildNames.cpu) {
        current.broken = true;
      }
      throw toLmtabError(error);
    } finally {
      residency.release(current);
    }
  }

  function tokenizerOf(current: Resident): Promise<Wllama> {
    if (current.info.build === buildNames.cpu) return Promise.resolve(current.wllama);
    const build = options.tokenizerBuild ?? options.cpuBuild;
    if (build === undefined) {
      return Promise.reject(
        new LmtabError(
          'not_implemented',
          `Model "${current.model}" runs on ${current.info.build ?? 'wllama'}, which has no tokenizer call, and lmtab's CPU build (${buildNames.cpu}), which answers /tokenize, /detokenize and /apply-template, is not available here.`,
        ),
      );
    }
    const started = (current.tokenizer ??= loadVocabTokenizer(current.files, {
      wasmUrl: options.wasmUrl,
      build,
      label: current.model,
    }));
    // A failed start is tried again by the next request.
    started.catch(() => {
      if (current.tokenizer === started) current.tokenizer = undefined;
    });
    return started;
  }

  async function tokenize(
    request: TokenizeRequest,
    tokenizeOptions: GenerateOptions = {},
  ): Promise<TokenizeResult> {
    return withTokenizer(request.model, tokenizeOptions.signal, async (tokenizer) => {
      const answer = await wllamaTokenAction(tokenizer, 'tokenize', {
        content: request.content,
        add_special: request.addSpecial ?? false,
        parse_special: request.parseSpecial ?? true,
        with_pieces: request.withPieces ?? false,
      });
      const tokens = answer.tokens as number[];
      if (request.withPieces !== true) return { tokens };
      return { tokens, pieces: (answer.pieces as unknown[]).map(glueBytes) };
    });
  }

  async function detokenize(
    request: DetokenizeRequest,
    detokenizeOptions: GenerateOptions = {},
  ): Promise<Uint8Array> {
    return withTokenizer(request.model, detokenizeOptions.signal, async (tokenizer) => {
      const answer = await wllamaTokenAction(tokenizer, 'detokenize', {
        tokens: request.tokens,
      });
      return glueBytes(answer.content);
    });
  }

  /** The chat body generate() sends (the same params and messages), through the template only. */
  async function applyTemplate(
    request: GenerateRequest,
    templateOptions: GenerateOptions = {},
  ): Promise<string> {
    const { input } = request;
    if (input.kind !== 'chat') {
      throw new LmtabError(
        'invalid_request',
        'messages: expected a chat (messages) to apply the chat template to, received a raw prompt.',
        { param: 'messages' },
      );
    }
    return withTokenizer(request.model, templateOptions.signal, async (tokenizer, current) => {
      // wllama's own step before a chat: images become the media marker in the text.
      const media = tokenizer as unknown as {
        prepareMultimodalInput(params: { messages: unknown[] }): {
          params: { messages: unknown[] };
        };
      };
      const { messages } = media.prepareMultimodalInput({
        messages: await wllamaMessages(input.messages),
      }).params;
      const answer = await wllamaTokenAction(tokenizer, 'apply_template', {
        ...wllamaParams(request, current),
        messages,
      });
      return String(answer.prompt);
    });
  }

  return { tokenize, detokenize, applyTemplate };
}
