/** JSON text as it is best shown: indented when it parses, as it came when it does not. */
export interface FormattedJson {
  text: string;
  /** Whether the text parsed as JSON. */
  valid: boolean;
}

/** Pretty-prints JSON text with two-space indents; text that is not JSON (yet) stays as it is. */
export function formatJsonText(text: string): FormattedJson {
  try {
    return { text: JSON.stringify(JSON.parse(text), null, 2), valid: true };
  } catch {
    return { text, valid: false };
  }
}

/**
 * Markdown for an answer asked for as JSON: one `json` code block holding the formatted answer,
 * fenced with more backticks than any run inside it, so the answer cannot close the fence early.
 */
export function jsonAnswerMarkdown(content: string): string {
  const { text } = formatJsonText(content);
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}json\n${text}\n${fence}`;
}
