import { formatTable } from './format-table.js';
import type { ShowResponse } from '../relay-client.js';

const indent = '    ';

/**
 * Writes `/api/show`'s answer as Ollama's `show` does: Model (architecture, parameters, context
 * and embedding length, quantization), Capabilities, Template, Parameters, System and License.
 */
export function formatShow(show: ShowResponse): string {
  const info = show.model_info ?? {};
  const arch = String(info['general.architecture'] ?? show.details?.family ?? '');
  const model: string[][] = [
    ['architecture', arch],
    ['parameters', show.details?.parameter_size ?? ''],
    ['context length', String(info[`${arch}.context_length`] ?? '')],
    ['embedding length', String(info[`${arch}.embedding_length`] ?? '')],
    ['quantization', show.details?.quantization_level ?? ''],
  ].filter(([, value]) => value !== '');
  const sections = [section('Model', formatTable(model, { indent }))];
  const capabilities = show.capabilities ?? [];
  if (capabilities.length > 0) {
    sections.push(section('Capabilities', capabilities.map((c) => `${indent}${c}\n`).join('')));
  }
  if ((show.template ?? '') !== '') sections.push(section('Template', excerpt(show.template, 8)));
  const parameters = parseParameterLines(show.parameters ?? '');
  if (parameters.length > 0) {
    sections.push(section('Parameters', formatTable(parameters, { indent })));
  }
  if ((show.system ?? '') !== '') sections.push(section('System', excerpt(show.system, 2)));
  if ((show.license ?? '') !== '') sections.push(section('License', excerpt(show.license, 2)));
  return `${sections.join('\n')}\n`;
}

/** Splits `/api/show`'s `parameters` text (`name<spaces>value` lines) into rows. */
export function parseParameterLines(text: string): string[][] {
  return text
    .split('\n')
    .map((line) => /^(\S+)\s+(.*)$/.exec(line.trim()))
    .filter((m) => m !== null)
    .map((m) => [m[1] ?? '', m[2] ?? '']);
}

function section(title: string, body: string): string {
  return `  ${title}\n${body}`;
}

/** The first lines of a text, indented, with `...` when there is more (as Ollama shows them). */
function excerpt(text: string | undefined, lines: number): string {
  const all = (text ?? '').replace(/\n+$/, '').split('\n');
  const shown = all.slice(0, lines).map((l) => `${indent}${l}`.trimEnd());
  if (all.length > lines) shown.push(`${indent}...`);
  return `${shown.join('\n')}\n`;
}
