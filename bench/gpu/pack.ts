import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { machineCacheDir } from '../../tests/support/machine-cache.mjs';
import {
  aptDownload,
  ensureWebgpu,
  installOnce,
  webgpuPins,
} from '../../tests/support/webgpu/ensure-webgpu.mjs';

/** The bundle and the tracked tree together stay under this (the 63 MiB). */
export const sizeLimitBytes = 63 * 2 ** 20;

/** Debian's Vulkan loader and the GL libraries NVIDIA's Vulkan driver loads (used only if absent). */
const systemLibraries = [
  'libvulkan1',
  'libegl1',
  'libglvnd0',
  'libopengl0',
  'libgl1',
  'libglx0',
  'libgles2',
];

/**
 * ggml's CPU backends kept beside the Vulkan llama-bench (it loads the best one the CPU runs; the
 * GPU does the work): the baseline and the levels of current server and desktop processors.
 */
const cpuBackends = [
  'x64',
  'haswell',
  'skylakex',
  'icelake',
  'sapphirerapids',
  'zen4',
  'alderlake',
];

/** llama.cpp's sources build-cuda.sh needs: the libraries, common, llama-bench; no other backend. */
const cudaSources = {
  include: [
    'CMakeLists.txt',
    'LICENSE',
    'cmake',
    'include',
    'src',
    'common',
    'vendor',
    'tools/llama-bench',
    'ggml/CMakeLists.txt',
    'ggml/cmake',
    'ggml/include',
    'ggml/src',
  ],
  exclude: [
    'blas',
    'cann',
    'et',
    'hexagon',
    'hip',
    'metal',
    'musa',
    'opencl',
    'openvino',
    'rpc',
    'sycl',
    'virtgpu',
    'vulkan',
    'webgpu',
    'zdnn',
    'zendnn',
  ].map((backend) => `--exclude=ggml/src/ggml-${backend}`),
};

/** Options of {@link packGpuBundle}. */
export interface PackOptions {
  /** The repository's root. */
  root: string;
  /** Where the bundle goes (emptied first). */
  dir: string;
  /** Progress lines. */
  log: (line: string) => void;
}

/** What {@link packGpuBundle} made. */
export interface PackResult {
  dir: string;
  bundleBytes: number;
  /** Bytes of the files `git ls-files` lists (the tracked tree). */
  trackedBytes: number;
  /** Bytes of each file in the bundle. */
  files: Record<string, number>;
}

function run(command: string, args: string[], cwd?: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
}

/** `xz -9` from a file or a tar of `members` under `from`, with Python's lzma where xz is absent. */
function compress(output: string, input: { file: string } | { tarOf: string[]; from: string }) {
  const source =
    'file' in input
      ? `cat ${JSON.stringify(input.file)}`
      : `tar -cf - -C ${JSON.stringify(input.from)} ${input.tarOf.join(' ')}`;
  const xz = existsSync('/usr/bin/xz')
    ? 'xz -9 -T1 -c'
    : `python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.compress(sys.stdin.buffer.read(), preset=9))'`;
  execFileSync('bash', ['-o', 'pipefail', '-c', `${source} | ${xz} > ${JSON.stringify(output)}`]);
}

/** A compressed part, made once per `stamp` into the cache (xz -9 of Node takes a minute). */
function part(cache: string, name: string, stamp: string, make: (out: string) => void): string {
  const dir = join(cache, name);
  installOnce(dir, stamp, (partial: string) => make(join(partial, name)));
  return join(dir, name);
}

function trackedBytes(root: string): number {
  return run('git', ['ls-files', '-z'], root)
    .split('\0')
    .filter(Boolean)
    .reduce((sum, file) => {
      const path = join(root, file);
      return sum + (existsSync(path) ? lstatSync(path).size : 0);
    }, 0);
}

function filesUnder(dir: string): Record<string, number> {
  const files: Record<string, number> = {};
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(dir, path)] = statSync(path).size;
    }
  };
  walk(dir);
  return files;
}

/**
 * Writes the GPU bench bundle: Node 24, Dawn, the native Vulkan llama-bench with its libraries,
 * wllama's stock wasm, the bundle tool (lmtab's engine, the Node shims and the GGUF writer), the
 * llama.cpp sources for build-cuda.sh, and run.sh; xz-compressed, unpacked there by unpack.py.
 * Fails when the bundle and the tracked tree pass {@link sizeLimitBytes}.
 */
export async function packGpuBundle(options: PackOptions): Promise<PackResult> {
  const { root, dir, log } = options;
  // What depends only on pinned versions (the native build, the compressed parts, the system
  // libraries) is kept in the machine's cache, so a fresh clone packs without rebuilding them.
  const cache = machineCacheDir('gpu-bench');
  const parts = join(cache, 'parts');
  const installed = ensureWebgpu({ lavapipe: false, log });
  log('bench:gpu: building the native Vulkan llama-bench (bench/gpu/build-vulkan-bench.sh)...');
  execFileSync('bash', [join(root, 'bench/gpu/build-vulkan-bench.sh'), join(cache, 'vulkan')], {
    stdio: 'inherit',
  });
  const vulkan = join(cache, 'vulkan');
  const vulkanInfo = JSON.parse(readFileSync(join(vulkan, 'info.json'), 'utf8'));
  const libs = join(cache, 'system-libraries');
  installOnce(libs, systemLibraries.join(' '), (partial: string) => {
    log(`bench:gpu: fetching ${systemLibraries.join(', ')} with apt-get download...`);
    const versions = aptDownload(systemLibraries, partial);
    writeFileSync(join(partial, 'versions.json'), JSON.stringify(versions, null, 2) + '\n');
  });
  const libDir = join(libs, 'root/usr/lib/x86_64-linux-gnu');
  const wllamaDir = join(root, 'node_modules/@wllama/wllama');
  const wllamaVersion = JSON.parse(readFileSync(join(wllamaDir, 'package.json'), 'utf8')).version;
  const source = Object.fromEntries(
    readFileSync(join(root, 'wasm/source.env'), 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => line.split('=') as [string, string]),
  );

  log(`bench:gpu: compressing (once per version, kept in ${parts})...`);
  const node = part(parts, 'node.xz', webgpuPins.node, (out) => {
    const stripped = `${out}.node`;
    copyFileSync(installed.node, stripped);
    run('strip', [stripped]);
    compress(out, { file: stripped });
    rmSync(stripped);
  });
  const dawnNode = part(parts, 'dawn.node.xz', webgpuPins.dawn, (out) =>
    compress(out, { file: join(installed.dawn, '../dist/linux-x64/dawn.node') }),
  );
  const vulkanFiles = readdirSync(vulkan).filter(
    (f) => !/^libggml-cpu-/.test(f) || cpuBackends.some((b) => f === `libggml-cpu-${b}.so`),
  );
  const native = part(parts, 'native.tar.xz', readFileSync(join(vulkan, '.built'), 'utf8'), (out) =>
    compress(out, { tarOf: vulkanFiles.filter((f) => !f.startsWith('.')), from: vulkan }),
  );
  const libFiles = readdirSync(libDir).filter((f) => lstatSync(join(libDir, f)).isSymbolicLink());
  const systemLibs = part(parts, 'all.tar.xz', systemLibraries.join(' '), (out) => {
    // Each library under its soname (the name the loader looks for), as a file.
    const named = `${out}.d`;
    mkdirSync(named);
    for (const file of libFiles) copyFileSync(join(libDir, file), join(named, file));
    compress(out, { tarOf: libFiles, from: named });
    rmSync(named, { recursive: true });
  });
  const llamaSrc = join(root, 'bench/.cache/native/llama.cpp');
  const sources = part(parts, 'llama.cpp.tar.xz', source.LLAMA_CPP_COMMIT!, (out) => {
    // tools/ holds llama-bench only; its CMakeLists adds just that.
    const staged = `${out}.d`;
    mkdirSync(staged);
    execFileSync(
      'bash',
      [
        '-o',
        'pipefail',
        '-c',
        `tar -cf - ${cudaSources.exclude.join(' ')} ${cudaSources.include.join(' ')} | tar -xf - -C ${JSON.stringify(staged)}`,
      ],
      { cwd: llamaSrc },
    );
    writeFileSync(join(staged, 'tools/CMakeLists.txt'), 'add_subdirectory(llama-bench)\n');
    compress(out, { tarOf: ['.'], from: staged });
    rmSync(staged, { recursive: true });
  });
  const wasm = part(parts, 'wllama.wasm.xz', wllamaVersion, (out) =>
    compress(out, { file: join(wllamaDir, 'esm/wasm/wllama.wasm') }),
  );

  log('bench:gpu: writing the bundle...');
  rmSync(dir, { recursive: true, force: true });
  for (const sub of ['bin', 'dawn/dist/linux-x64', 'lib', 'src', 'wllama']) {
    mkdirSync(join(dir, sub), { recursive: true });
  }
  copyFileSync(node, join(dir, 'bin/node.xz'));
  copyFileSync(dawnNode, join(dir, 'dawn/dist/linux-x64/dawn.node.xz'));
  for (const file of ['index.js', 'package.json', 'LICENSE.md']) {
    copyFileSync(join(installed.dawn, '..', file), join(dir, 'dawn', file));
  }
  copyFileSync(native, join(dir, 'native.tar.xz'));
  copyFileSync(systemLibs, join(dir, 'lib/all.tar.xz'));
  copyFileSync(sources, join(dir, 'src/llama.cpp.tar.xz'));
  copyFileSync(wasm, join(dir, 'wllama/wllama.wasm.xz'));
  for (const script of ['run.sh', 'unpack.py', 'build-cuda.sh']) {
    copyFileSync(join(root, 'bench/gpu', script), join(dir, script));
    chmodSync(join(dir, script), 0o755);
  }
  const tool = join(cache, 'tool.mjs');
  await build({
    entryPoints: [join(root, 'bench/gpu/bundle-tool.ts')],
    outfile: tool,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    legalComments: 'eof',
    logLevel: 'warning',
  });
  compress(join(dir, 'tool.mjs.xz'), { file: tool });
  const commit = run('git', ['rev-parse', 'HEAD'], root).trim();
  const manifest = {
    lmtab: commit,
    node: webgpuPins.node,
    dawn: webgpuPins.dawn,
    wllama: wllamaVersion,
    llamaCpp: `${source.LLAMA_CPP_COMMIT!.slice(0, 7)} (npm node-llama-cpp@${source.NODE_LLAMA_CPP_VERSION})`,
    vulkanLibraries: `npm @node-llama-cpp/linux-x64-vulkan@${source.NODE_LLAMA_CPP_VERSION}`,
    nativeBuild: vulkanInfo.flags,
    debian: JSON.parse(readFileSync(join(libs, 'versions.json'), 'utf8')),
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  writeFileSync(
    join(dir, 'README.txt'),
    [
      "lmtab's GPU bench bundle (npm run bench:gpu -- --pack), lmtab " + commit.slice(0, 12) + '.',
      'Needs Linux x86-64 with glibc 2.34 or newer (Ubuntu 22.04, Debian 12), Python 3 and a',
      'Vulkan driver; no network.',
      '',
      '  ./run.sh              models, native Vulkan llama-bench, lmtab WebGPU in Node + Dawn with',
      '                        and without vulkan_enable_f16_on_nvidia, results/summary.md',
      '  ./build-cuda.sh       optional, after run.sh: a native CUDA llama-bench (needs nvcc, cmake)',
      '',
      'Copy results/ back and fold it in: npm run bench:gpu -- --fold results',
      '',
    ].join('\n'),
  );
  const files = filesUnder(dir);
  const bundleBytes = Object.values(files).reduce((a, b) => a + b, 0);
  return { dir, bundleBytes, trackedBytes: trackedBytes(root), files };
}
