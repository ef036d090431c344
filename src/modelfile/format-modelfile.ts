import { LmtabError } from '../errors/index.js';
import type { ModelCustomization } from './model-customization.js';
import { parameterSpecs } from './parameter-specs.js';

/** Options of {@link formatModelfile}. */
export interface FormatModelfileOptions {
  /** Comment lines written first, each behind `# `; default none. */
  header?: readonly string[];
}

/** Writes a customization as Modelfile text that `parseModelfile` reads back to an equal value. */
export function formatModelfile(
  customization: ModelCustomization,
  options: FormatModelfileOptions = {},
): string {
  // Ollama's order (server/images.go Model.String); values stay plain where that is unambiguous.
  const lines = (options.header ?? []).flatMap((h) => h.split('\n')).map((h) => `# ${h}`.trimEnd());
  lines.push(`FROM ${quote(customization.from, 'FROM')}`);
  if (customization.template !== undefined) {
    lines.push(`TEMPLATE ${quote(customization.template, 'TEMPLATE')}`);
  }
  if (customization.system !== undefined) {
    lines.push(`SYSTEM ${quote(customization.system, 'SYSTEM')}`);
  }
  const known = Object.keys(parameterSpecs);
  const names = Object.keys(customization.parameters).sort(
    (a, b) => rank(known, a) - rank(known, b),
  );
  for (const name of names) {
    const value = customization.parameters[name];
    for (const item of Array.isArray(value) ? value : [value]) {
      const text =
        typeof item === 'number' ? String(item) : quote(String(item), `PARAMETER ${name}`);
      lines.push(`PARAMETER ${name} ${text}`);
    }
  }
  if (customization.license !== undefined) {
    lines.push(`LICENSE ${quote(customization.license, 'LICENSE')}`);
  }
  for (const m of customization.messages) {
    lines.push(`MESSAGE ${m.role} ${quote(m.content, `MESSAGE ${m.role}`)}`);
  }
  return `${lines.join('\n')}\n`;
}

function rank(known: readonly string[], name: string): number {
  const i = known.indexOf(name);
  return i < 0 ? known.length : i;
}

/**
 * Picks the form the parser reads back exactly: plain text, "..." or """...""". A quoted value
 * ends at the first line whose trimmed end is its quote, so no inner line may end with it.
 */
function quote(value: string, what: string): string {
  const lines = value.split(/\r\n|\r|\n/);
  const plain =
    lines.length === 1 && value !== '' && value === value.trim() && !value.startsWith('"');
  if (plain) return value;
  const inner = lines.slice(0, -1).map((l) => l.trimEnd());
  // A value that starts with "" would read as a """ opening after a single ".
  if (lines.length === 1 && !value.startsWith('""')) return `"${value}"`;
  if (!inner.some((l) => l.endsWith('"""'))) return `"""${value}"""`;
  // Such a value cannot come from parseModelfile, which would have closed the quote there.
  throw new LmtabError(
    'invalid_request',
    `${what} cannot be written as a Modelfile value: a line inside it ends with """, which would close the quote`,
  );
}
