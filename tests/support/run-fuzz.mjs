// `npm run fuzz -- --runs N [--seed S]`: the fuzz suites (the router alone, then the relay with the
// router behind it) with N cases each instead of `npm test`'s few hundred; a random seed unless
// given, printed so that a failure can be replayed with --seed.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '20000' }, seed: { type: 'string' } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs: expected a whole number of cases, received "${values.runs}"`);
  process.exit(2);
}
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
console.log(
  `fuzzing with ${runs} cases per suite, seed ${seed} (replay: npm run fuzz -- --runs ${runs} --seed ${seed})`,
);
const result = spawnSync(
  'npx',
  ['vitest', 'run', 'src/api/router.fuzz.test.ts', 'src/relay/relay.fuzz.test.ts'],
  {
    stdio: 'inherit',
    env: {
      ...process.env,
      LMTAB_FUZZ_RUNS: String(runs),
      LMTAB_FUZZ_SEED: seed,
      LMTAB_FUZZ_STATS: '1',
    },
  },
);
process.exit(result.status ?? 1);
