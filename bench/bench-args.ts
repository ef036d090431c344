// The bench's command line: `npm run bench -- --help` lists it.
import { parseArgs } from 'node:util';
import { testPorts } from '../tests/support/test-ports.js';
import { benchSettings, type BenchSettings, type BenchSize } from './workload.js';

/** The parsed flags of `npm run bench`. */
export const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    sizes: { type: 'string' },
    quants: { type: 'string' },
    runs: { type: 'string' },
    threads: { type: 'string' },
    port: { type: 'string', default: String(testPorts.bench) },
    webgpu: { type: 'string', default: 'auto' },
    engines: { type: 'string' },
    'skip-llama-wasm': { type: 'boolean', default: false },
    'skip-native': { type: 'boolean', default: false },
    'no-chat': { type: 'boolean', default: false },
    'no-transports': { type: 'boolean', default: false },
    clients: { type: 'string' },
    'add-to': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

/** Prints the flags and exits, when `--help` asked for them. */
export function exitWithHelpIfAsked(): void {
  if (!args.help) return;
  process.stdout.write(`npm run bench [-- options]
  --quick              tiny model, 1 run, short generations: proves the harness, measures nothing
  --sizes=350M,1.2B    model sizes (tiny, 350M, 1.2B, 2.6B, 8B-A1B); default 350M,1.2B (tiny with --quick)
  --quants=Q8_0,Q4_K_M weight types; default both (Q4_K_M is quantized from Q8_0 by the native
                       reference's llama-quantize); Q8_0 only with --quick
  --runs=N             runs per figure; default 3 (1 with --quick)
  --threads=1,4        thread counts; default 1, half the cores and all cores
  --port=${testPorts.bench}         port of the relay that serves the bench page
  --webgpu=auto        auto: offer a WebGPU adapter if the browser has one (SwiftShader allowed);
                       swiftshader: force SwiftShader; off: no WebGPU
  --engines=LIST       which engines: native (llama.cpp built here, llama-bench), llama.node
                       (the old prebuilt reference), lmtab-cpu (lmtab's CPU build), wllama
                       (wllama's stock build), node-llama-wasm; default all
  --skip-llama-wasm    skip @fugood/node-llama-wasm
  --skip-native        skip both native references
  --no-chat            engine rows measure prompt, decode, load and memory only (no chat turns)
  --no-transports      skip the transport rows (concurrent clients still run)
  --clients=1,4        concurrent client counts; default 1,4,8
  --add-to=FILE        add this run's engine rows to an earlier results file (e.g. 1.2B rows to
                       a 350M run), skipping transports, concurrent clients and the engine-choice
                       checks, which the earlier run measured; latest.* then show the joined figures
Environment: LMTAB_BROWSER (Chromium path), LMTAB_BENCH_BROWSER_ARGS (extra browser flags).
`);
  process.exit(0);
}

/** The workload's settings, as the flags change the defaults. */
export function settingsFromArgs(): BenchSettings {
  const settings = benchSettings(args.quick ?? false);
  if (args.sizes) settings.sizes = args.sizes.split(',').map((s) => s.trim() as BenchSize);
  if (args.clients) settings.clients = args.clients.split(',').map((c) => Math.max(1, Number(c)));
  if (args.runs) {
    settings.runs = Math.max(1, Number(args.runs));
    settings.transportRuns = Math.max(settings.runs, settings.transportRuns);
  }
  return settings;
}

/** The engines the bench knows. */
export const engineChoices = [
  'native',
  'llama.node',
  'lmtab-cpu',
  'wllama',
  'node-llama-wasm',
] as const;

/** The engines `--engines` names, less those a `--skip-*` flag leaves out. */
export function chosenEngines(): Set<(typeof engineChoices)[number]> {
  const names = args.engines?.split(',').map((name) => name.trim()) ?? [...engineChoices];
  const unknown = names.filter((name) => !(engineChoices as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `--engines: expected a comma-separated list of ${engineChoices.join(', ')}, got ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
    );
  }
  const chosen = new Set(names as (typeof engineChoices)[number][]);
  if (args['skip-native']) {
    chosen.delete('native');
    chosen.delete('llama.node');
  }
  if (args['skip-llama-wasm']) chosen.delete('node-llama-wasm');
  return chosen;
}
