import { LmtabError } from '../../errors/index.js';
import type {
  FinishReason,
  GenerateEvent,
  GenerateOptions,
  GenerateInput,
  GenerateRequest,
  Usage,
} from '../engine.js';
import {
  assertAnswerLimit,
  assertContextLength,
  contextExceeded,
  PromptOverContext,
  promptTokensOf,
  raisedContext,
} from '../memory/context-limits.js';
import { wllamaRawCompletion } from './wllama-raw-completion.js';
import { ForcedToolCallReader } from './forced-tool-call.js';
import { chunkEvents, type WllamaChunk } from './wllama-chunk-events.js';
import { forcesToolCall, wllamaParams } from './wllama-params.js';
import { cannotHear } from '../audio-model.js';
import { engineFailure, requestFailure, hearingReason } from './wllama-failures.js';
import { wllamaMessages } from './wllama-messages.js';
import type { Resident, WllamaRuntime } from './wllama-runtime.js';

/** Token counts of a finished answer: the whole prompt, and how much of it came from the cache. */
function chunkUsage(last: WllamaChunk, pieces: number): Usage {
  const { usage, timings } = last;
  const cached = timings?.cache_n ?? usage?.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: timings ? timings.prompt_n + (timings.cache_n ?? 0) : (usage?.prompt_tokens ?? 0),
    ...(cached === undefined ? {} : { cachedPromptTokens: cached }),
    completionTokens: usage?.completion_tokens ?? timings?.predicted_n ?? pieces,
  };
}

/** A tool call id in OpenAI's style (`call_` and 24 hex digits). */
function callId(): string {
  // getRandomValues, unlike randomUUID, also works on plain-http LAN origins (no secure context).
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return 'call_' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Text generation on the wllama engine: chats through llama-server's chat completion, raw prompts
 * through its completion, as events; a prompt over the loaded context reloads the model with a
 * longer one (`contextReasons` says why while it loads).
 */
export function createWllamaGenerate(runtime: WllamaRuntime, contextReasons: Map<string, string>) {
  const { options, residency, clock, parallel } = runtime;

  /**
   * Answers a request; a prompt that does not fit the loaded context (and names no context length
   * itself) reloads the model with a longer one, up to its training context, and runs again.
   */
  async function* generate(
    request: GenerateRequest,
    generateOptions: GenerateOptions = {},
  ): AsyncGenerator<GenerateEvent> {
    try {
      yield* attempt(request, generateOptions);
    } catch (error) {
      if (!(error instanceof PromptOverContext)) throw error;
      if (request.contextLength !== undefined) throw error.failure;
      const record = await options.store.get(request.model);
      const { promptTokens, loaded } = error;
      const raised = raisedContext(
        promptTokens,
        loaded,
        request.sampling.maxTokens,
        record?.gguf.contextLength,
      );
      if (raised === undefined) throw error.failure;
      const reason = `raised from ${loaded.toLocaleString('en')} to ${raised.toLocaleString('en')} tokens of context for a prompt of ${promptTokens.toLocaleString('en')} tokens`;
      contextReasons.set(request.model, reason);
      try {
        yield* attempt({ ...request, contextLength: raised }, generateOptions);
      } catch (reload) {
        if (!(reload instanceof LmtabError) || reload.code !== 'model_too_large') throw reload;
        throw new LmtabError(
          'context_length_exceeded',
          `The prompt is ${promptTokens.toLocaleString('en')} tokens, more than the ${loaded.toLocaleString('en')} tokens of context ${request.model} was loaded with, and a reload with ${raised.toLocaleString('en')} tokens does not fit this device: ${reload.message} Shorten the conversation, or set a context length this device holds (num_ctx, or Developer -> Load settings).`,
          { param: 'messages', cause: reload },
        );
      } finally {
        contextReasons.delete(request.model);
      }
    }
  }

  async function* attempt(
    request: GenerateRequest,
    generateOptions: GenerateOptions,
  ): AsyncGenerator<GenerateEvent> {
    const { signal } = generateOptions;
    const started = clock();
    await assertContextFits(request);
    const { current, loadMs } = await residency.acquire(
      request.model,
      request.contextLength,
      signal,
    );
    let releaseSlot: (() => void) | undefined;
    let tokens = 0;
    try {
      assertAnswerLimit(current.model, request.sampling.maxTokens, current.contextLength);
      assertMedia(current, request.input);
      releaseSlot = await current.slots.take(signal);
      const input = request.input;
      // max_tokens is a ceiling: past the loaded context the answer ends with `length` anyway.
      const { maxTokens } = request.sampling;
      const ceiling =
        maxTokens === undefined ? undefined : Math.min(maxTokens, current.contextLength);
      const params = wllamaParams(
        { ...request, sampling: { ...request.sampling, maxTokens: ceiling } },
        current,
      );
      const stream = (
        input.kind === 'chat'
          ? await current.wllama.createChatCompletion({
              ...params,
              stream: true as const,
              abortSignal: signal,
              messages: (await wllamaMessages(input.messages)) as never,
            })
          : wllamaRawCompletion(current.wllama, { ...params, prompt: input.prompt }, { signal })
      ) as AsyncIterable<WllamaChunk>;
      let finishReason: FinishReason = 'stop';
      let stopSequence: string | undefined;
      let last: WllamaChunk = {};
      const topLogprobs = request.logprobs?.top;
      const calls = new Set<number>();
      const forced = forcesToolCall(request) ? new ForcedToolCallReader(callId()) : undefined;
      for await (const chunk of stream) {
        for (const event of chunkEvents(chunk, { topLogprobs })) {
          if (event.type === 'token' && event.text !== '') tokens += 1;
          if (forced !== undefined && event.type === 'token') {
            yield* forced.push(event.text);
            continue;
          }
          // The first piece of a call names it; llama.cpp leaves the id out for some formats.
          if (event.type === 'tool_call' && !calls.has(event.index)) {
            calls.add(event.index);
            event.id ??= callId();
          }
          yield event;
        }
        const reason = chunk.choices?.[0]?.finish_reason;
        if (reason === 'length' || reason === 'tool_calls') finishReason = reason;
        if (chunk.__verbose?.stop_type === 'word' && chunk.__verbose.stopping_word) {
          stopSequence = chunk.__verbose.stopping_word;
        }
        if (chunk.timings || chunk.usage) last = { ...last, ...chunk };
      }
      signal?.throwIfAborted();
      const timings = last.timings;
      yield {
        type: 'done',
        finishReason,
        ...(finishReason === 'stop' && stopSequence !== undefined ? { stopSequence } : {}),
        usage: chunkUsage(last, tokens),
        timings: {
          loadMs,
          promptMs: timings?.prompt_ms ?? 0,
          decodeMs: timings?.predicted_ms ?? 0,
          totalMs: clock() - started,
        },
      };
    } catch (error) {
      const failure = requestFailure(current, error, signal);
      if (failure.code !== 'engine_failure') throw failure;
      if (/exceeds the available context size/.test(failure.message)) {
        const exceeded = contextExceeded(
          current.model,
          current.contextLength,
          failure.message,
          error,
        );
        const promptTokens = promptTokensOf(failure.message);
        // Refused before any token of the answer: generate() may reload with a longer context.
        if (tokens === 0 && promptTokens !== undefined) {
          throw new PromptOverContext(promptTokens, current.contextLength, exceeded);
        }
        throw exceeded;
      }
      if (/Context size has been exceeded/.test(failure.message)) {
        throw new LmtabError(
          'invalid_request',
          `The context is full: ${current.model} is loaded with ${current.contextLength.toLocaleString('en')} tokens of context, shared by its ${parallel} parallel slots, and this answer (with any others in progress) needed more. Ask for fewer tokens (max_tokens, num_predict), or load the model with a longer context (num_ctx, or Developer -> Load settings).`,
          { param: 'max_tokens', cause: error },
        );
      }
      throw engineFailure(current, failure, error);
    } finally {
      releaseSlot?.();
      residency.release(current);
    }
  }

  /**
   * The media a request sends, against what the resident model reads (llama.cpp's own answer from
   * its projector): audio to a model that does not hear, or images to one that does not see, is a
   * 400 that says why, before anything runs.
   */
  function assertMedia(current: Resident, input: GenerateInput): void {
    if (input.kind !== 'chat') return;
    const parts = input.messages.flatMap((message) => message.content);
    const { wllama, model } = current;
    if (parts.some((part) => part.type === 'audio') && !wllama.supportInputModality('audio')) {
      throw cannotHear(model, hearingReason(current));
    }
    const images = parts.filter((part) => part.type === 'image').length;
    if (images > 0 && !wllama.supportInputModality('image')) {
      throw new LmtabError(
        'invalid_request',
        `Model "${model}" cannot read images: its projector (mmproj) has an audio encoder and no vision encoder, and the request has ${images} ${images === 1 ? 'image' : 'images'}. Send audio or text, or use a model with a vision projector.`,
        { param: 'messages' },
      );
    }
  }

  /** A context longer than the model was trained for (or than memory holds) is refused up front. */
  async function assertContextFits(request: GenerateRequest): Promise<void> {
    const wanted = request.contextLength;
    if (wanted === undefined) return;
    const record = await options.store.get(request.model).catch(() => undefined);
    assertContextLength(request.model, wanted, record?.gguf.contextLength);
  }

  return generate;
}
