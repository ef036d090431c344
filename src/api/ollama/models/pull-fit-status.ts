import {
  cpuAddressSpace,
  cpuBytes,
  cpuFileLimit,
  gibText,
  gpuBytes,
  memory64AddressSpace,
} from '../../../engine/index.js';
import type { ModelFit, PathFit } from '../../../engine/index.js';
import { formatBytes } from '../../../store/index.js';

/**
 * How a pulled model fits this device, as `/api/pull` status lines: one for the CPU engine, one
 * for the GPU. Short, because Ollama's CLI redraws its status lines and a wrapped one breaks that;
 * the full sentences are `modelFit`'s, shown in Discover.
 */
export function pullFitStatus(fit: ModelFit): string[] {
  const { need } = fit;
  return [
    cpuLine(fit.cpu, cpuBytes(need), need.largestFileBytes),
    gpuLine(fit.gpu, gpuBytes(need)),
  ];
}

function cpuLine(cpu: PathFit, total: number, largestFile: number): string {
  const needs = `needs about ${formatBytes(total)}`;
  if (cpu.fits === 'yes' && cpu.build === 'memory64') {
    return `CPU: fits the memory64 engine (slower), ${needs}`;
  }
  if (cpu.fits === 'yes') return `CPU: fits, ${needs} of the engine's ${gibText(cpuAddressSpace)}`;
  if (cpu.fits === 'unknown') return `CPU: may not fit this device's memory, ${needs}`;
  if (total > memory64AddressSpace) {
    return `CPU: does not fit, ${needs}; the engines hold ${gibText(memory64AddressSpace)}`;
  }
  return largestFile > cpuFileLimit
    ? `CPU: does not fit, a file of ${formatBytes(largestFile)}; the engine reads up to ${gibText(cpuFileLimit)}`
    : `CPU: does not fit, ${needs}; the engine holds ${gibText(cpuAddressSpace)}`;
}

function gpuLine(gpu: PathFit, bytes: number): string {
  const needs = `needs about ${formatBytes(bytes)} of GPU memory`;
  // modelFit's sentence is short here: no adapter llama.cpp can use.
  if (gpu.fits === 'no') return gpu.text;
  return gpu.fits === 'yes' ? `GPU: fits, ${needs}` : `GPU: ${needs}`;
}
