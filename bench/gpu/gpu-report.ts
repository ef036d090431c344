import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OffloadReport } from '../../tests/support/webgpu/offload-report.js';

/**
 * The result files of one GPU bench run (at most 8, in the run's `results/` folder) and the
 * summary made from them, shared by the bundle's tool (on the GPU machine) and `--fold` (here).
 */
export const resultFiles = {
  system: 'system.json',
  nativeVulkan: 'native-vulkan.json',
  nativeVulkanLog: 'native-vulkan.log',
  nativeCuda: 'native-cuda.json',
  webgpu: 'webgpu-f16-toggle.json',
  fallback: 'webgpu-no-toggle.json',
  webgpuLog: 'webgpu.log',
  summary: 'summary.md',
} as const;

/** The machine a run measured. */
export interface GpuSystem {
  /** ISO date of the run. */
  date: string;
  /** `model name` of /proc/cpuinfo, and the logical cores. */
  cpu: string;
  cores: number;
  /** Each GPU `nvidia-smi` lists (none where it is absent). */
  gpus: { name: string; driver: string; memory: string }[];
  /** `uname -sr`. */
  kernel: string;
  /** Whether this was the bundle's dry run (lavapipe, tiny models). */
  dryRun: boolean;
  /** Seconds `run.sh` took, written when it ends. */
  seconds?: number;
  /** The bundle's manifest: versions of each part. */
  bundle: Record<string, unknown>;
}

/** One row of `llama-bench -o json`. */
export interface LlamaBenchRow {
  model_filename: string;
  n_prompt: number;
  n_gen: number;
  avg_ts: number;
  stddev_ts: number;
  backends?: string;
  gpu_info?: string;
}

/** One model measured by lmtab's engine on WebGPU in Node + Dawn. */
export interface WebgpuModelRun {
  /** File name, e.g. `lfm2-350m-q4_k_m.gguf`. */
  file: string;
  bytes: number;
  /** The engine's report after the load: backend, build, adapter, layers, fallback reason. */
  info: {
    backend: string;
    build?: string;
    adapter?: string;
    gpuLayers: number;
    fallbackReason?: string;
  };
  /** What llama.cpp's log says about the load. */
  offload: OffloadReport;
  loadMs: number;
  /** Tokens of each prompt and of each answer, and tokens per second of each repetition. */
  prompt: { tokens: number; tokPerSec: number[] };
  decode: { tokens: number; tokPerSec: number[] };
  /** Why this measurement is not what it claims to be, if it is not. */
  problem?: string;
}

/** One run of the bundle tool's `webgpu` command (one Dawn instance, several models). */
export interface WebgpuRun {
  dawnFlags: string[];
  /** Adapter features hidden from the engine (the dry run shows NVIDIA's view this way). */
  hiddenFeatures: string[];
  /** The adapter Dawn offered, as the app's probe sees it. */
  adapter: { vendor: string; architecture: string; description: string; features: string[] };
  runs: WebgpuModelRun[];
}

/** Everything a run wrote, read back. */
export interface GpuRun {
  system: GpuSystem;
  nativeVulkan: LlamaBenchRow[];
  /** From `ggml_vulkan: 0 = NVIDIA L4 (NVIDIA) | uma: 0 | ...`: the device llama-bench used. */
  vulkanDevice?: string;
  nativeCuda?: LlamaBenchRow[];
  webgpu: WebgpuRun;
  fallback: WebgpuRun;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

/** Reads a run's result folder. */
export function readGpuRun(dir: string): GpuRun {
  const file = (name: string) => join(dir, name);
  const log = existsSync(file(resultFiles.nativeVulkanLog))
    ? readFileSync(file(resultFiles.nativeVulkanLog), 'utf8')
    : '';
  // `llvmpipe (LLVM 15.0.6, 256 bits) (llvmpipe) | uma: 0 | fp16: 1 | ...`: the name part.
  const device = /ggml_vulkan: 0 = ([^|\n]*)/.exec(log)?.[1]?.trim();
  return {
    system: readJson(file(resultFiles.system)),
    nativeVulkan: existsSync(file(resultFiles.nativeVulkan))
      ? readJson(file(resultFiles.nativeVulkan))
      : [],
    ...(device && { vulkanDevice: device }),
    ...(existsSync(file(resultFiles.nativeCuda)) && {
      nativeCuda: readJson<LlamaBenchRow[]>(file(resultFiles.nativeCuda)),
    }),
    webgpu: readJson(file(resultFiles.webgpu)),
    fallback: readJson(file(resultFiles.fallback)),
  };
}

/** `lfm2-350m-q4_k_m.gguf` -> `LFM2-350M-shaped Q4_K_M` (`tiny LFM2 Q4_K_M` for the dry run's). */
export function modelLabel(file: string): string {
  const match = /lfm2-([^-]+)-(.+)\.gguf$/.exec(file.split('/').pop() ?? file);
  if (!match) return file;
  const type = match[2]!.toUpperCase();
  return match[1] === 'tiny'
    ? `tiny LFM2 ${type}`
    : `LFM2-${match[1]!.toUpperCase()}-shaped ${type}`;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Median tokens per second of a run's prompts and answers. */
export function speeds(run: WebgpuModelRun): { prompt: number; decode: number } {
  return { prompt: median(run.prompt.tokPerSec), decode: median(run.decode.tokPerSec) };
}

function nativeSpeeds(rows: LlamaBenchRow[] | undefined, file: string) {
  const mine = (rows ?? []).filter((r) => r.model_filename.endsWith(file));
  const prompt = mine.find((r) => r.n_prompt > 0 && r.n_gen === 0)?.avg_ts;
  const decode = mine.find((r) => r.n_gen > 0 && r.n_prompt === 0)?.avg_ts;
  return prompt === undefined || decode === undefined ? undefined : { prompt, decode };
}

const isNvidia = (adapter: WebgpuRun['adapter']) =>
  /nvidia/i.test(`${adapter.vendor} ${adapter.description}`);

/**
 * What is wrong with a run, as sentences; none for a good one: the toggled run has every layer of
 * every model on the GPU, and the run without the toggle fell back to the CPU where the adapter is
 * NVIDIA's (or where the dry run hid `shader-f16`).
 */
export function gpuRunProblems(run: GpuRun): string[] {
  const problems: string[] = [];
  if (!run.vulkanDevice) {
    problems.push('native llama-bench found no Vulkan device (it ran on the CPU)');
  }
  const files = run.webgpu.runs.map((r) => r.file);
  if (files.length === 0) problems.push('the WebGPU run measured no model');
  for (const model of run.webgpu.runs) {
    if (model.problem) problems.push(`${model.file}, WebGPU with the toggle: ${model.problem}`);
    if (!nativeSpeeds(run.nativeVulkan, model.file)) {
      problems.push(`${model.file}: native Vulkan llama-bench has no prompt and decode rows`);
    }
  }
  const expectFallback =
    isNvidia(run.fallback.adapter) || run.fallback.hiddenFeatures.includes('shader-f16');
  for (const model of run.fallback.runs) {
    const fellBack = model.info.backend === 'wasm' && model.offload.layers === undefined;
    if (expectFallback && !fellBack) {
      problems.push(
        `${model.file}, WebGPU without the toggle: expected the CPU fallback, got ${model.info.backend} with ${model.offload.layers?.offloaded ?? 0} layers offloaded`,
      );
    }
  }
  if (run.fallback.runs.length === 0) problems.push('the run without the toggle measured no model');
  return problems;
}

const fixed = (value: number) => (value >= 100 ? value.toFixed(0) : value.toPrecision(3));
const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;

/** The run as Markdown: the machine, one row per model, the fallback, and any problems. */
export function summarizeGpuRun(run: GpuRun): string {
  const { system } = run;
  const gpu =
    system.gpus.map((g) => `${g.name} (driver ${g.driver}, ${g.memory})`).join(', ') ||
    run.vulkanDevice ||
    run.webgpu.adapter.description;
  const reps = run.webgpu.runs[0]?.prompt.tokPerSec.length ?? 0;
  const promptTokens = run.nativeVulkan.find((r) => r.n_prompt > 0)?.n_prompt ?? 0;
  const decodeTokens = run.nativeVulkan.find((r) => r.n_gen > 0)?.n_gen ?? 0;
  const lines = [
    `GPU bench ${system.dryRun ? 'dry run ' : ''}of ${system.date.slice(0, 10)}: ${gpu}; host ${system.cpu} (${system.cores} cores), ${system.kernel}.`,
    `WebGPU: lmtab's engine on wllama ${String(system.bundle.wllama ?? '')}'s stock build in Node ${String(system.bundle.node ?? '')} + Dawn (npm webgpu@${String(system.bundle.dawn ?? '')}), adapter "${run.webgpu.adapter.description}", flags \`${run.webgpu.dawnFlags.join(' ')}\`.`,
    `Native: llama.cpp ${String(system.bundle.llamaCpp ?? '')} llama-bench${run.vulkanDevice ? ` on ${run.vulkanDevice}` : ''}.`,
    '',
    `Tokens per second, prompt (${promptTokens} tokens) / decode (${decodeTokens} tokens); native: llama-bench's average, WebGPU: ${reps === 1 ? 'one run' : `median of ${reps} runs`}.`,
    '',
    `| model | native Vulkan |${run.nativeCuda ? ' native CUDA |' : ''} lmtab WebGPU in Node + Dawn | WebGPU / Vulkan | layers on the GPU, graph splits |`,
    `|---|---:|${run.nativeCuda ? '---:|' : ''}---:|---:|---|`,
  ];
  for (const model of run.webgpu.runs) {
    const vulkan = nativeSpeeds(run.nativeVulkan, model.file);
    const cuda = nativeSpeeds(run.nativeCuda, model.file);
    const mine = speeds(model);
    const layers = model.offload.layers
      ? `${model.offload.layers.offloaded}/${model.offload.layers.total}, ${model.offload.graph?.splits ?? '?'} splits`
      : 'none (CPU)';
    lines.push(
      [
        '',
        modelLabel(model.file),
        vulkan ? `${fixed(vulkan.prompt)} / ${fixed(vulkan.decode)}` : 'n/a',
        ...(run.nativeCuda ? [cuda ? `${fixed(cuda.prompt)} / ${fixed(cuda.decode)}` : 'n/a'] : []),
        `${fixed(mine.prompt)} / ${fixed(mine.decode)}`,
        vulkan
          ? `${percent(mine.prompt, vulkan.prompt)} / ${percent(mine.decode, vulkan.decode)}`
          : 'n/a',
        layers,
        '',
      ]
        .join(' | ')
        .trim(),
    );
  }
  lines.push('');
  for (const model of run.fallback.runs) {
    const mine = speeds(model);
    const hidden = run.fallback.hiddenFeatures.length
      ? ` (dry run: ${run.fallback.hiddenFeatures.join(', ')} hidden, as NVIDIA's driver shows Dawn)`
      : '';
    const where =
      model.info.backend === 'wasm'
        ? `lmtab runs ${modelLabel(model.file)} on the CPU (${model.info.build ?? 'wasm'}, 1 thread): ${model.info.fallbackReason ?? 'no reason given'}`
        : `${modelLabel(model.file)} still runs on WebGPU (${model.offload.layers?.offloaded ?? 0} layers): this adapter has shader-f16 without the toggle`;
    lines.push(
      `Without \`vulkan_enable_f16_on_nvidia\`${hidden}: ${where}; prompt ${fixed(mine.prompt)} / decode ${fixed(mine.decode)} tok/s (${model.prompt.tokens} / ${model.decode.tokens} tokens).`,
    );
  }
  const problems = gpuRunProblems(run);
  if (problems.length > 0) lines.push('', 'Problems:', ...problems.map((p) => `- ${p}`));
  if (system.seconds !== undefined) lines.push('', `run.sh took ${system.seconds} s.`);
  return lines.join('\n') + '\n';
}
