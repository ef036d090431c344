/**
 * Where a load ran, read from llama.cpp's own log lines (wllama's worker forwards them). A WebGPU
 * load that lands on the CPU raises no error: llama.cpp's WebGPU backend registers no device on an
 * adapter without `shader-f16`, and the model then runs on the CPU. These lines are the proof.
 */
export interface OffloadReport {
  /** `ggml_webgpu: adapter_info: ...`: the adapter llama.cpp's WebGPU backend opened, if any. */
  adapter?: { vendor: string; architecture: string; description: string };
  /** `load_tensors: offloaded N/M layers to GPU`: the text model's layers on the GPU, of all. */
  layers?: { offloaded: number; total: number };
  /** `graph: nodes = X, splits = S` of the text model's reserved graph (the last one logged). */
  graph?: { nodes: number; splits: number };
  /** `mtmd_subcontext: using WebGPU`: the vision projector's backend, when one was loaded. */
  projectorBackend?: string;
  /** The projector's `graph splits = S`, when one was loaded. */
  projectorSplits?: number;
}

/** Reads an {@link OffloadReport} from the log lines of one load. */
export function readOffload(lines: readonly string[]): OffloadReport {
  const report: OffloadReport = {};
  for (const line of lines) {
    const adapter = /ggml_webgpu: adapter_info: (.*)/.exec(line);
    if (adapter) {
      const field = (name: string) =>
        new RegExp(`(?:^|\\| )${name}: ([^|]*)`).exec(adapter[1]!)?.[1]?.trim() ?? '';
      report.adapter = {
        vendor: field('vendor'),
        architecture: field('architecture'),
        description: field('device_desc'),
      };
    }
    const layers = /offloaded (\d+)\/(\d+) layers to GPU/.exec(line);
    if (layers) report.layers = { offloaded: Number(layers[1]), total: Number(layers[2]) };
    const graph = /graph: nodes = (\d+), splits = (\d+)/.exec(line);
    if (graph) report.graph = { nodes: Number(graph[1]), splits: Number(graph[2]) };
    const projector = /mtmd_subcontext: using (\S+)/.exec(line);
    if (projector) report.projectorBackend = projector[1]!.replace(/:$/, '');
    const projectorSplits = /reserve_compute_meta: graph splits = (\d+)/.exec(line);
    if (projectorSplits) report.projectorSplits = Number(projectorSplits[1]);
  }
  return report;
}

/**
 * Why a load is not wholly on the GPU, or undefined when it is: llama.cpp opened an adapter and
 * offloaded every layer.
 */
export function notOnGpu(report: OffloadReport): string | undefined {
  if (!report.adapter) {
    return "llama.cpp's WebGPU backend opened no adapter (no `ggml_webgpu: adapter_info` line): the model ran on the CPU";
  }
  if (!report.layers) return 'llama.cpp logged no `offloaded N/M layers to GPU` line';
  const { offloaded, total } = report.layers;
  if (offloaded < total) return `llama.cpp offloaded ${offloaded} of ${total} layers to the GPU`;
  return undefined;
}
