// Gives Debian's Chromium a real WebGPU adapter with shader-f16 on a CPU-only machine: Mesa's
// lavapipe (the WebGPU suite's, from ensure-webgpu.mjs) and a small Vulkan layer that lets Chromium's
// Dawn take it (chromium-lavapipe-layer.c says why Chromium needs one). The layer is built here with
// the system's gcc against Debian's Vulkan headers (`libvulkan-dev`, fetched with `apt-get download`
// as lavapipe is) into the machine cache, in a folder named by the hash of its source, so that a
// change to the source builds it again; nothing is installed system-wide.
//
// As a command: node tests/support/webgpu/chromium-webgpu.mjs   installs what is missing and prints
// the browser's environment.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aptDownload, defaultCacheDir, installLavapipe, installOnce } from './ensure-webgpu.mjs';

/** Debian's Vulkan headers of bookworm (1.3.239), the ones the layer was written against. */
export const vulkanHeadersPin = 'libvulkan-dev';

const here = fileURLToPath(new URL('.', import.meta.url));
const layerSource = join(here, 'chromium-lavapipe-layer.c');
const layerManifest = join(here, 'chromium-lavapipe-layer.json');
const manifestName = 'VkLayer_lmtab_chromium_lavapipe.json';
const compileFlags = ['-O2', '-shared', '-fPIC', '-fvisibility=hidden'];

/** What the layer's folder name and stamp depend on: its source, its manifest, the build. */
function layerHash() {
  const hash = createHash('sha256');
  for (const part of [
    readFileSync(layerSource),
    readFileSync(layerManifest),
    compileFlags.join(' '),
    vulkanHeadersPin,
  ]) {
    hash.update(part).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Where everything lies once installed, computed without installing (the Playwright config needs
 * the browser's environment before its setup project has run).
 * @param {string} [cacheDir] default the machine cache's `webgpu` folder
 */
export function chromiumWebgpuPaths(cacheDir = defaultCacheDir) {
  const manifest = JSON.parse(readFileSync(layerManifest, 'utf8'));
  const layerDir = join(cacheDir, `chromium-layer-${layerHash()}`);
  return {
    icd: join(cacheDir, 'lavapipe', 'lvp_icd.json'),
    libDir: join(cacheDir, 'lavapipe', 'root/usr/lib/x86_64-linux-gnu'),
    layerDir,
    layerLibrary: join(layerDir, manifest.layer.library_path),
    layerName: manifest.layer.name,
  };
}

function installVulkanHeaders(cacheDir, log) {
  const dest = join(cacheDir, 'vulkan-headers');
  const done = installOnce(dest, vulkanHeadersPin, (dir) => {
    log(`webgpu: fetching the Vulkan headers (${vulkanHeadersPin}) with apt-get download...`);
    aptDownload([vulkanHeadersPin], dir);
    // Only the headers: the registry files and the loader's link are 9 MB of no use here.
    for (const unused of ['root/usr/share', 'root/usr/lib']) {
      rmSync(join(dir, unused), { recursive: true, force: true });
    }
  });
  if (done) log(`webgpu: Vulkan headers in ${dest}`);
  return join(dest, 'root/usr/include');
}

function buildLayer(paths, include, log) {
  const stamp = layerHash();
  const done = installOnce(paths.layerDir, stamp, (dir) => {
    log('webgpu: building the Chromium lavapipe layer with gcc...');
    const library = join(dir, JSON.parse(readFileSync(layerManifest, 'utf8')).layer.library_path);
    try {
      execFileSync(
        'gcc',
        [...compileFlags, `-I${include}`, '-o', library, layerSource, '-lpthread'],
        { stdio: ['ignore', 'inherit', 'inherit'] },
      );
    } catch (error) {
      const missing = error.code === 'ENOENT';
      throw new Error(
        missing
          ? 'Building the Chromium lavapipe layer needs a C compiler, and gcc is not on the PATH (Debian: apt-get install gcc).'
          : `gcc could not build ${layerSource}: ${error.message}`,
      );
    }
    copyFileSync(layerManifest, join(dir, manifestName));
  });
  if (done) log(`webgpu: Chromium lavapipe layer in ${paths.layerDir}`);
}

/**
 * Installs lavapipe, the Vulkan headers and the layer where they are missing (each once per
 * machine), and answers where they are ({@link chromiumWebgpuPaths}).
 * @param {{cacheDir?: string, log?: (line: string) => void}} [options]
 *   `cacheDir`: default the machine cache's `webgpu` folder; `log`: progress lines (default stderr).
 */
export function ensureChromiumWebgpu(options = {}) {
  const cacheDir = options.cacheDir ?? defaultCacheDir;
  const log = options.log ?? ((line) => process.stderr.write(line + '\n'));
  const paths = chromiumWebgpuPaths(cacheDir);
  installLavapipe(cacheDir, log);
  if (!existsSync(paths.layerLibrary)) buildLayer(paths, installVulkanHeaders(cacheDir, log), log);
  return paths;
}

/**
 * Lavapipe as the only Vulkan driver, its libraries first: all Firefox needs (it takes lavapipe as
 * it is, with its WebGPU prefs; tests/e2e/support/firefox.ts).
 */
export function lavapipeEnv(paths, base = process.env) {
  return {
    ...base,
    VK_ICD_FILENAMES: paths.icd,
    VK_DRIVER_FILES: paths.icd,
    LD_LIBRARY_PATH: [paths.libDir, base.LD_LIBRARY_PATH].filter(Boolean).join(':'),
  };
}

/**
 * The browser process's environment (its GPU process inherits it, and Chromium's bundled Vulkan
 * loader reads it): lavapipe as the only ICD, its libraries first, the layer on, the CPU device
 * reported as a discrete GPU so that Dawn sorts it before SwiftShader.
 */
export function chromiumWebgpuEnv(paths, base = process.env) {
  return {
    ...lavapipeEnv(paths, base),
    VK_LAYER_PATH: paths.layerDir,
    VK_INSTANCE_LAYERS: paths.layerName,
    SHIM_DISCRETE: '1',
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const paths = ensureChromiumWebgpu();
    const env = chromiumWebgpuEnv(paths, {});
    process.stdout.write(JSON.stringify({ ...paths, env }, null, 2) + '\n');
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  }
}
