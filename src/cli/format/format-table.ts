/** Spaces between table columns: Ollama's table padding. */
export const defaultTablePadding = 4;

/** Options of {@link formatTable}. */
export interface FormatTableOptions {
  /** Spaces between columns; default {@link defaultTablePadding}. */
  padding?: number;
  /** Text before each row; default none. */
  indent?: string;
}

/** Lays rows out in left-aligned columns (the first row is the header, if any); no trailing spaces. */
export function formatTable(
  rows: readonly (readonly string[])[],
  options: FormatTableOptions = {},
): string {
  const padding = options.padding ?? defaultTablePadding;
  const indent = options.indent ?? '';
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, width(cell))));
  }
  return rows
    .map((row) => {
      const cells = row.map((cell, i) =>
        i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell) + padding),
      );
      return `${indent}${cells.join('')}`.trimEnd();
    })
    .map((line) => `${line}\n`)
    .join('');
}

/** Display width: code points (model names and sizes are not double-width). */
function width(text: string): number {
  return [...text].length;
}
