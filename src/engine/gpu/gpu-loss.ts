import type { Wllama } from '@wllama/wllama/esm/index.js';
import { LmtabError } from '../../errors/index.js';
import { gpuWatchPrefix, type BackendRecord } from './backend-record.js';
import type { EngineInfo } from '../engine.js';
import type { Capabilities } from './capability-probe.js';
import { loseDeviceMessage } from './gpu-worker-prologue.js';

/** A loaded wllama instance as the GPU loss code sees it. */
export interface GpuLossTarget {
  model: string;
  wllama: Wllama;
  info: EngineInfo;
  backend: BackendRecord;
  /** Whether lmtab's GPU watch runs in its worker (`gpu-worker-prologue.ts`). */
  gpuWatched: boolean;
}

/** The error of a request whose GPU device was lost under it (see {@link BackendRecord.gpuLoss}). */
export function gpuDeviceLostError(
  target: GpuLossTarget,
  line: string,
  cause: unknown,
): LmtabError {
  const where =
    target.info.backend === 'webgpu'
      ? `on WebGPU (${target.info.adapter ?? 'a GPU adapter'})`
      : 'with no GPU device of its own';
  return new LmtabError(
    'gpu_device_lost',
    `The GPU device was lost while ${target.model} was generating ${where} ("${line}"), so this answer ended. The model was unloaded; the next request loads it again, on WebGPU if an adapter is available again and on the CPU otherwise.`,
    { cause },
  );
}

/**
 * Test hook: loses an instance's GPU device. On WebGPU with the watch in its worker, the watch
 * destroys the device (a real loss: llama.cpp's next wait on the GPU fails); an instance with no
 * device (on the CPU) gets the line the watch logs on a loss, as if it had one.
 */
export function loseGpuDevice(target: GpuLossTarget): 'destroyed' | 'simulated' {
  if (target.gpuWatched && target.info.backend === 'webgpu') {
    const proxy = (target.wllama as unknown as { proxy?: { worker?: Worker } }).proxy;
    if (!proxy?.worker) throw new Error("wllama's worker is not where lmtab looks for it");
    proxy.worker.postMessage(loseDeviceMessage);
    return 'destroyed';
  }
  target.backend.push(
    `${gpuWatchPrefix} device lost (unknown): simulated by the lmtab test hook (this model has no GPU device)`,
  );
  return 'simulated';
}

/**
 * Capabilities probed after a GPU loss, with the reason for a missing adapter saying what happened:
 * Chromium gives a page no adapter for a while after its GPU process crashed twice within minutes
 * (and none at all after a third, until the browser restarts). Unchanged when there is an adapter.
 */
export function withGpuLossReason(caps: Capabilities, loss: EngineInfo['gpuLost']): Capabilities {
  if (caps.gpu || loss === undefined || caps.noAdapterReason === undefined) return caps;
  const when = new Date(loss.at).toISOString();
  return {
    ...caps,
    noAdapterReason:
      `${caps.noAdapterReason} since the GPU device was lost at ${when} ("${loss.line}"): ` +
      'Chromium withholds WebGPU from a page after repeated GPU crashes; reloading the tab, or ' +
      'restarting the browser after a third crash, brings it back',
  };
}
