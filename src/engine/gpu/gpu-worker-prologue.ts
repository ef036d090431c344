import type { Wllama } from '@wllama/wllama/esm/index.js';
import { gpuWatchPrefix } from './backend-record.js';
import { gpuPowerPreference } from './gpu-adapter.js';
import { memory64Supported } from '../builds/memory64-build.js';

/** The message that makes the watch destroy every GPU device of its worker (a test hook). */
export const loseDeviceMessage = { lmtabGpu: 'lose-device' } as const;

/**
 * Code run in wllama's worker before its emscripten glue, on WebGPU loads. llama.cpp's WebGPU
 * backend asks for an adapter with no power preference (`RequestAdapterOptions` left empty, read in
 * ggml-webgpu.cpp), which the glue passes on as `powerPreference: undefined`; this fills in
 * `high-performance`, as lmtab's own probe asks, so both get the same GPU. It also watches every
 * device the worker creates and logs `lmtab-gpu: device lost (REASON): MESSAGE` through wllama's
 * log messages when one is lost (llama.cpp logs nothing for some losses and aborts only at its next
 * wait on the GPU), and destroys them all on {@link loseDeviceMessage}. Plain ES2020, with no
 * `var Module` in it (wllama renames the first one it finds in the code it is given).
 */
export const gpuWorkerPrologue = `;(function (scope) {
  if (scope.__lmtabGpuWatch || typeof scope.GPU !== 'function' || typeof scope.GPUAdapter !== 'function') return;
  scope.__lmtabGpuWatch = true;
  var say = function (text) {
    try { scope.postMessage({ verb: 'console.warn', args: [${JSON.stringify(gpuWatchPrefix)} + ' ' + text] }); } catch (e) {}
  };
  var devices = new Set();
  var byHook = new WeakSet();
  var requestAdapter = scope.GPU.prototype.requestAdapter;
  scope.GPU.prototype.requestAdapter = function (options) {
    var wanted = Object.assign({}, options);
    if (wanted.powerPreference === undefined) wanted.powerPreference = ${JSON.stringify(gpuPowerPreference)};
    return requestAdapter.call(this, wanted).then(function (adapter) {
      var info = (adapter && adapter.info) || {};
      say(adapter
        ? 'adapter ' + JSON.stringify({ powerPreference: wanted.powerPreference, vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description })
        : 'no adapter for powerPreference ' + wanted.powerPreference);
      return adapter;
    });
  };
  var requestDevice = scope.GPUAdapter.prototype.requestDevice;
  scope.GPUAdapter.prototype.requestDevice = function (descriptor) {
    return requestDevice.call(this, descriptor).then(function (device) {
      devices.add(device);
      device.lost.then(function (info) {
        devices.delete(device);
        var hooked = byHook.has(device);
        // llama.cpp destroys its own device when the model unloads: that is no loss.
        if (info.reason === 'destroyed' && !hooked) return;
        say('device lost (' + (hooked ? 'destroyed by the lmtab test hook' : info.reason) + '): ' + info.message);
      });
      return device;
    });
  };
  scope.addEventListener('message', function (event) {
    if (!event.data || event.data.lmtabGpu !== ${JSON.stringify(loseDeviceMessage.lmtabGpu)}) return;
    say('test hook: destroying ' + devices.size + ' GPU device(s)');
    devices.forEach(function (device) { byHook.add(device); device.destroy(); });
  });
})(globalThis);
`;

/**
 * Makes a wllama instance of the stock build run {@link gpuWorkerPrologue} before its glue. Only
 * where wllama itself would load the stock build as is (JSPI and memory64: its non-compat mode),
 * since the resources replace wllama's own choice. False when it could not.
 */
export function watchGpu(wllama: Wllama, stockWasmUrl: string, stockGlueCode: string): boolean {
  if (!memory64Supported()) return false;
  const wasmPath = new URL(stockWasmUrl, globalThis.location?.href).href;
  wllama.getWorkerResources = () => ({
    wasmPath,
    jsPath: { code: gpuWorkerPrologue + stockGlueCode },
    compat: false,
  });
  return true;
}
