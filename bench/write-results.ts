// The bench's output: bench/results/*.json, latest.json, latest.md, docs/performance.md's section.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { parseJsonFile } from '../src/cloud/index.js';
import { log, root } from './bench-context.js';
import {
  machineLine,
  performancePage,
  renderMarkdown,
  renderTables,
  replaceDocSection,
} from './report.js';
import type { BenchResults } from './results.js';

const resultsDir = join(root, 'bench/results');

/** The results file `--add-to` names, checked to be one `npm run bench` wrote. */
export async function readEarlierResults(path: string): Promise<BenchResults> {
  const text = await readFile(path, 'utf8').catch((error: unknown) => {
    throw new Error(
      `--add-to: expected a results file from an earlier run (bench/results/*.json), but ${path} cannot be read: ${(error as Error).message}`,
    );
  });
  const parsed = parseJsonFile(text, `--add-to's results file ${path}`) as Partial<BenchResults>;
  if (parsed.schema !== 1 || !Array.isArray(parsed.engines)) {
    throw new Error(
      `--add-to: expected bench results (schema 1, with engine rows) in ${path}, got ${JSON.stringify(parsed).slice(0, 80)}`,
    );
  }
  return parsed as BenchResults;
}

/** Writes the results, latest.* and the performance page's latest run, in the project's style. */
export async function writeResults(results: BenchResults): Promise<void> {
  await mkdir(resultsDir, { recursive: true });
  const stamp = results.finishedAt.replaceAll(':', '-').slice(0, 19);
  const name = `${stamp}${results.settings.quick ? '-quick' : ''}.json`;
  // The project's Prettier settings, so that `npm run lint` accepts what the bench writes.
  const style = (filepath: string) =>
    resolveConfig(filepath).then((config) => ({ ...config, filepath }));
  const json = await format(JSON.stringify(results), await style(join(resultsDir, name)));
  await writeFile(join(resultsDir, name), json);
  await writeFile(join(resultsDir, 'latest.json'), json);
  const markdown = await format(
    renderMarkdown(results),
    await style(join(resultsDir, 'latest.md')),
  );
  await writeFile(join(resultsDir, 'latest.md'), markdown);
  const pagePath = join(root, performancePage);
  const section = [
    `Latest run (\`bench/results/latest.md\` has every table): ${machineLine(results)}`,
    '',
    renderTables(results),
  ].join('\n');
  const page = replaceDocSection(await readFile(pagePath, 'utf8'), section);
  await writeFile(pagePath, await format(page, await style(pagePath)));
  log(`wrote bench/results/${name}, latest.json, latest.md and ${performancePage}'s latest run`);
}
