import type { EngineBuffers } from '../engine.js';

const bufferLine = /\b(model|KV|RS|compute|output) buffer size =\s*([\d.]+) MiB/;

/**
 * The buffers a load's log reports; undefined when it names no model buffer (a log that scrolled
 * past the load, or an engine that does not say). The projector's compute buffer counts too.
 */
export function buffersFromLog(log: readonly string[]): EngineBuffers | undefined {
  const buffers: EngineBuffers = { modelMiB: 0, cacheMiB: 0, computeMiB: 0 };
  let model = false;
  for (const line of log) {
    const match = bufferLine.exec(line);
    if (!match) continue;
    const mib = Number(match[2]);
    if (match[1] === 'model') {
      model = true;
      buffers.modelMiB += mib;
    } else if (match[1] === 'KV' || match[1] === 'RS') buffers.cacheMiB += mib;
    else buffers.computeMiB += mib;
  }
  if (!model) return undefined;
  const round = (mib: number) => Math.round(mib * 100) / 100;
  return {
    modelMiB: round(buffers.modelMiB),
    cacheMiB: round(buffers.cacheMiB),
    computeMiB: round(buffers.computeMiB),
  };
}
