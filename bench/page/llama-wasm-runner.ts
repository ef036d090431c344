import type * as LlamaWasm from '@fugood/node-llama-wasm';
import type { LlamaCompletionOptions, LlamaContextWrapper } from '@fugood/node-llama-wasm';
import type { ModelStore } from '../../src/store/index.js';
import type { GenerateSpec } from '../generate-spec.js';
import { StreamClock, type StreamTiming } from '../stream-timing.js';
import type { CapabilityCheck, LlamaWasmConfig, LoadTiming } from './bench-api.js';

/** Where the bench build copies the package, unbundled: its worker imports `./index.js`. */
const moduleUrl = '/vendor/node-llama-wasm/index.js';
const now = () => performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (ms: number) => Math.round(ms);

/** A data URI of a small PNG drawn in the page. */
async function pngDataUri(): Promise<string> {
  const canvas = new OffscreenCanvas(64, 48);
  const context = canvas.getContext('2d')!;
  context.fillStyle = '#3b5bdb';
  context.fillRect(0, 0, 64, 48);
  const bytes = new Uint8Array(
    await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer(),
  );
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `data:image/png;base64,${btoa(binary)}`;
}

/**
 * Runs @fugood/node-llama-wasm (llama.cpp through llama.node's browser build) on models from lmtab's
 * store, one context at a time, and checks it against lmtab's needs.
 */
export function createLlamaWasmRunner(store: Pick<ModelStore, 'open'>) {
  let library: Promise<typeof LlamaWasm> | undefined;
  let context: LlamaContextWrapper | undefined;
  const load = () =>
    (library ??= import(/* @vite-ignore */ moduleUrl) as Promise<typeof LlamaWasm>);
  const required = () => {
    if (!context) throw new Error('no node-llama-wasm model is loaded');
    return context;
  };

  async function generate(spec: GenerateSpec): Promise<StreamTiming> {
    const options: LlamaCompletionOptions = {
      ...(spec.messages ? { messages: spec.messages } : { prompt: spec.prompt ?? '' }),
      n_predict: spec.maxTokens,
      ignore_eos: true,
      temperature: 0,
    };
    const clock = new StreamClock(now(), now);
    const result = await required().completion(options, (token) =>
      clock.piece(token.content ?? token.token),
    );
    // tokens_evaluated also counts the generated tokens: the prompt is timings.prompt_n.
    return clock.finish(
      {
        promptTokens: result.timings?.prompt_n ?? result.tokens_evaluated,
        completionTokens: result.tokens_predicted,
      },
      { promptMs: result.timings?.prompt_ms ?? NaN, decodeMs: result.timings?.predicted_ms ?? NaN },
    );
  }

  async function release(): Promise<void> {
    const current = context;
    context = undefined;
    await current?.release();
  }

  async function start(model: string, config: LlamaWasmConfig): Promise<LoadTiming> {
    await release();
    const started = now();
    const blobs = await store.open(model);
    const { loadModel } = await load();
    context = await loadModel({
      model: blobs.model.length === 1 ? blobs.model[0]! : blobs.model,
      n_ctx: config.contextLength,
      n_threads: config.threads,
      n_gpu_layers: 0,
      wasm: { threads: config.threads > 1, cacheDownloads: false },
    });
    return { loadMs: now() - started, detail: context.getSystemInfo() };
  }

  /** Streaming, abort, parallel requests and chat templates, on the loaded model. */
  async function probe(): Promise<CapabilityCheck[]> {
    const ctx = required();
    const checks: CapabilityCheck[] = [];

    const arrivals: number[] = [];
    const started = now();
    const result = await ctx.completion(
      { prompt: ' bc fg kz', n_predict: 32, ignore_eos: true, temperature: 0 },
      () => arrivals.push(now()),
    );
    const ended = now();
    const decodeMs = result.timings?.predicted_ms ?? NaN;
    const spread = (arrivals.at(-1) ?? NaN) - (arrivals[0] ?? NaN);
    checks.push({
      need: 'streaming',
      supported: arrivals.length > 1 && spread >= decodeMs / 2,
      evidence: `${result.tokens_predicted} tokens took ${round(decodeMs)} ms to decode, but all ${arrivals.length} token callbacks arrived within ${round(spread)} ms, the first ${round((arrivals[0] ?? NaN) - started)} ms after the call (which returned after ${round(ended - started)} ms): tokens are delivered when the completion ends, not as they are decoded`,
    });

    const abortStarted = now();
    const running = ctx.completion({
      prompt: ' bc fg',
      n_predict: 64,
      ignore_eos: true,
      temperature: 0,
    });
    await sleep(300);
    let stopError = '';
    try {
      ctx.stopCompletion();
    } catch (error) {
      stopError = error instanceof Error ? error.message : String(error);
    }
    const aborted = await running;
    checks.push({
      need: 'abort',
      supported: stopError === '' && aborted.tokens_predicted < 64,
      evidence: `stopCompletion() 300 ms into a 64-token completion ${stopError ? `threw "${stopError}"` : 'returned'}; the completion generated ${aborted.tokens_predicted} tokens and ended after ${round(now() - abortStarted)} ms (interrupted: ${aborted.interrupted}); completion() takes no AbortSignal`,
    });

    await ctx.parallel.enable({ n_parallel: 4 });
    const slots = ctx.parallel.getStatus().n_parallel;
    const single = now();
    await (
      await ctx.parallel.completion({
        prompt: ' bc',
        n_predict: 16,
        ignore_eos: true,
        temperature: 0,
      })
    ).promise;
    const singleMs = now() - single;
    const pair = now();
    const spans = await Promise.all(
      [' fg', ' kz'].map(async (prompt) => {
        const request = await ctx.parallel.completion({
          prompt,
          n_predict: 16,
          ignore_eos: true,
          temperature: 0,
        });
        await request.promise;
        return now() - pair;
      }),
    );
    ctx.parallel.disable();
    checks.push({
      need: 'parallel requests',
      supported: slots > 1 && Math.max(...spans) < 1.5 * singleMs,
      evidence: `parallel.enable({ n_parallel: 4 }) reports n_parallel ${slots}; one 16-token request took ${round(singleMs)} ms, two sent together finished after ${spans.map(round).join(' and ')} ms: requests run one after the other`,
    });

    const formatted = await ctx.getFormattedChatAsync(
      [{ role: 'user', content: ' bc' }],
      undefined,
      {
        add_generation_prompt: true,
      },
    );
    const prompt = String((formatted as { prompt?: string }).prompt ?? '');
    checks.push({
      need: 'chat templates',
      supported: prompt.includes('<|im_start|>user') && prompt.endsWith('<|im_start|>assistant\n'),
      evidence: `the GGUF's Jinja template rendered ${JSON.stringify(prompt)} (${formatted.type})`,
    });
    return checks;
  }

  /** Loads a vision model with its projector from the store, describes an image, releases it. */
  async function probeImages(model: string): Promise<CapabilityCheck> {
    const previous = context;
    context = undefined;
    const blobs = await store.open(model);
    const { loadModel } = await load();
    const ctx = await loadModel({
      model: blobs.model[0]!,
      n_ctx: 2048,
      n_threads: 1,
      wasm: { threads: false },
    });
    try {
      if (!blobs.projector) throw new Error(`${model} has no projector in the store`);
      const enabled = await ctx.initMultimodal({ path: blobs.projector });
      const text = await ctx.completion({
        messages: [{ role: 'user', content: ' bc' }],
        n_predict: 1,
      });
      const image = await ctx.completion({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: { url: await pngDataUri() } },
              { type: 'text', text: ' bc' },
            ],
          },
        ],
        n_predict: 1,
      });
      // tokens_evaluated, not prompt_n: prompt_n leaves out what the prompt cache already held.
      return {
        need: 'images',
        supported: enabled && image.tokens_evaluated > text.tokens_evaluated,
        evidence: `initMultimodal(projector Blob) answered ${enabled}; with a 64x48 PNG as an image_url part the model evaluated ${image.tokens_evaluated} tokens, against ${text.tokens_evaluated} for the same message without it`,
      };
    } catch (error) {
      return { need: 'images', supported: false, evidence: `failed: ${String(error)}` };
    } finally {
      await ctx.release();
      context = previous;
    }
  }

  return {
    load: start,
    generate,
    release,
    probe,
    probeImages,
    async support() {
      const lib = await load();
      return { threads: lib.isWasmThreadsSupported(), webgpu: lib.isWebGpuSupported() };
    },
  };
}
