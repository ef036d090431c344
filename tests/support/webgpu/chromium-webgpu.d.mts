// Types of chromium-webgpu.mjs for the TypeScript code that imports it (the Playwright config).

/** Where lavapipe and the Chromium layer lie once installed. */
export interface ChromiumWebgpuPaths {
  /** lavapipe's ICD file. */
  icd: string;
  /** lavapipe's libraries (and the libraries it needs). */
  libDir: string;
  /** The folder of the layer's manifest and library (`VK_LAYER_PATH`). */
  layerDir: string;
  layerLibrary: string;
  /** The layer's name (`VK_INSTANCE_LAYERS`). */
  layerName: string;
}

export declare const vulkanHeadersPin: string;
export declare function chromiumWebgpuPaths(cacheDir?: string): ChromiumWebgpuPaths;
export declare function ensureChromiumWebgpu(options?: {
  cacheDir?: string;
  log?: (line: string) => void;
}): ChromiumWebgpuPaths;
export declare function chromiumWebgpuEnv(
  paths: ChromiumWebgpuPaths,
  base?: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv;
export declare function lavapipeEnv(
  paths: Pick<ChromiumWebgpuPaths, 'icd' | 'libDir'>,
  base?: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv;
