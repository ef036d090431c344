// The native reference's child process: llama.cpp through @fugood/llama.node on the same files,
// prompts and thread counts as the browser. Its own process, so its peak memory is its own.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { runChatTurns } from './chat-turns.js';
import { nativeResultMarker, type NativeJob, type NativeResult } from './native-job.js';
import { StreamClock } from './stream-timing.js';

/** The part of @fugood/llama.node the benchmark uses (its typings ship as TypeScript sources). */
interface NativeContext {
  completion(
    options: Record<string, unknown>,
    onToken?: (token: { token: string; content?: string }) => void,
  ): Promise<{
    tokens_evaluated: number;
    tokens_predicted: number;
    timings: { prompt_n: number; prompt_ms: number; predicted_n: number; predicted_ms: number };
  }>;
  getSystemInfo(): string;
  release(): Promise<void>;
}
interface NativeModule {
  loadModel(options: Record<string, unknown>): Promise<NativeContext>;
}

const now = () => performance.now();

function peakRss(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) * 1024 : NaN;
}

async function main(job: NativeJob): Promise<NativeResult> {
  const { loadModel } = (await import(pathToFileURL(job.packageEntry).href)) as NativeModule;
  const result: NativeResult = {
    loadMs: [],
    promptTokS: [],
    decodeTokS: [],
    promptTokens: [],
    completionTokens: [],
    chats: [],
    peakRssBytes: NaN,
    systemInfo: '',
  };
  for (let run = 0; run < job.prompts.length; run++) {
    const started = now();
    const context = await loadModel({
      model: job.model,
      n_ctx: job.contextLength,
      n_threads: job.threads,
      n_gpu_layers: 0,
    });
    result.loadMs.push(now() - started);
    result.systemInfo = context.getSystemInfo();
    const completion = await context.completion({
      prompt: job.prompts[run],
      n_predict: job.decodeTokens,
      ignore_eos: true,
      temperature: 0,
    });
    const { timings } = completion;
    result.promptTokS.push((timings.prompt_n * 1000) / timings.prompt_ms);
    result.decodeTokS.push((timings.predicted_n * 1000) / timings.predicted_ms);
    result.promptTokens.push(timings.prompt_n);
    result.completionTokens.push(completion.tokens_predicted);
    const chat = job.chats[run];
    if (chat) {
      result.chats.push(
        await runChatTurns(chat, async (messages, maxTokens) => {
          const clock = new StreamClock(now(), now);
          const answer = await context.completion(
            { messages, n_predict: maxTokens, ignore_eos: true, temperature: 0 },
            (token) => clock.piece(token.token),
          );
          return clock.finish({
            promptTokens: answer.timings.prompt_n,
            completionTokens: answer.tokens_predicted,
          });
        }),
      );
    }
    await context.release();
  }
  result.peakRssBytes = peakRss();
  return result;
}

const job = JSON.parse(process.argv[2] ?? '{}') as NativeJob;
main(job).then(
  (result) => {
    process.stdout.write(`\n${nativeResultMarker}${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`native reference failed: ${String(error)}\n`);
    process.exit(1);
  },
);
