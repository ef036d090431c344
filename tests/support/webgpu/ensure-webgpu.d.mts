// Types of ensure-webgpu.mjs for the TypeScript code that imports it (the GPU bench's packer).

/** Where lavapipe was unpacked, and the Debian packages' versions. */
export interface Lavapipe {
  icd: string;
  libDir: string;
  versions: Record<string, string>;
}

/** What ensureWebgpu installed: Node 24's binary, Dawn's index.js, and lavapipe when asked. */
export interface WebgpuInstall {
  node: string;
  dawn: string;
  lavapipe?: Lavapipe;
}

export declare const webgpuPins: { node: string; dawn: string; lavapipe: string[] };
export declare const defaultCacheDir: string;
export declare function installOnce(
  dest: string,
  stamp: string,
  step: (partial: string) => void,
): boolean;
export declare function aptDownload(packages: string[], dir: string): Record<string, string>;
export declare function installLavapipe(cacheDir: string, log: (line: string) => void): Lavapipe;
export declare function ensureWebgpu(options?: {
  cacheDir?: string;
  lavapipe?: boolean;
  log?: (line: string) => void;
}): WebgpuInstall;
export declare function webgpuEnv(
  installed: WebgpuInstall,
  base?: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv;
