// Makes sure the agents the agents spec drives are installed, each at its pinned version in its own
// folder under the machine cache's `agents` (machine-cache.mjs: installed once for every checkout,
// and lmtab's own install stays light): Claude Code, Codex,
// opencode and the OpenAI Agents SDK. Installs with the npm registry only when a pin is missing;
// the packages' own install steps (which put the platform's native binary in place) run explicitly,
// so that npm versions which hold back install scripts install them the same way.
// Usage: node tests/support/ensure-agents.mjs   (prints nothing when everything is in place)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineCacheDir } from './machine-cache.mjs';

/** Where the installs live. */
export const agentsDir = machineCacheDir('agents');

/**
 * Each agent: its packages at exact versions, the package whose version marks the install, its
 * install step (relative to the folder) and its executable in node_modules/.bin.
 */
export const agentInstalls = {
  claude: {
    packages: { '@anthropic-ai/claude-code': '2.1.197' },
    postinstall: 'node_modules/@anthropic-ai/claude-code/install.cjs',
    bin: 'claude',
  },
  codex: { packages: { '@openai/codex': '0.171.0' }, bin: 'codex' },
  opencode: {
    packages: { 'opencode-ai': '1.18.33' },
    postinstall: 'node_modules/opencode-ai/postinstall.mjs',
    bin: 'opencode',
  },
  // opencode installs its plugin package into every config folder it reads, from the registry
  // unless an install with its lockfile is there: the tests copy this one into theirs.
  'opencode-config': { packages: { '@opencode-ai/plugin': '1.18.33' }, lockfile: true },
  sdk: { packages: { '@openai/agents': '0.14.3', openai: '6.49.0', zod: '4.6.7' } },
};

/** The executable of an agent in its folder. */
export function agentBin(name) {
  return join(agentsDir, name, 'node_modules', '.bin', agentInstalls[name].bin);
}

function installed(dir, packages) {
  return Object.entries(packages).every(([name, version]) => {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === version;
  });
}

/** Installs whatever pin is missing; returns the names installed now. */
export function ensureAgents() {
  const done = [];
  for (const [name, install] of Object.entries(agentInstalls)) {
    const dir = join(agentsDir, name);
    if (installed(dir, install.packages) && (!install.bin || existsSync(agentBin(name)))) continue;
    process.stdout.write(
      `Installing ${Object.keys(install.packages).join(', ')} for the agents spec...\n`,
    );
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify({ private: true, dependencies: install.packages }, null, 2)}\n`,
    );
    const lockfile = install.lockfile ? [] : ['--no-package-lock'];
    execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', ...lockfile], {
      cwd: dir,
      stdio: 'inherit',
    });
    if (install.postinstall) {
      const script = join(dir, install.postinstall);
      execFileSync(process.execPath, [script], { cwd: dirname(script), stdio: 'inherit' });
    }
    done.push(name);
  }
  return done;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureAgents();
