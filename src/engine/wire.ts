// The engine's second entry, for code on both sides of the relay (the API's wire shapes, the CLI):
// what the engine reports, as plain data. Everything it reaches runs anywhere: no DOM, no Node
// built-ins (tsconfig.node.json compiles it without the DOM).
export { keyGpuLimits } from './gpu-adapter-report.js';
export type { GpuAdapterReport, KeyGpuLimit } from './gpu-adapter-report.js';
