// A tool call whose arguments are not JSON cannot be a call in the protocols whose calls carry an
// object (Anthropic's tool_use input, Ollama's arguments). Rather than failing the whole answer
// (and, mid-stream, the agent's turn), such a call is kept as text, as Ollama keeps a call its
// parser cannot read: nothing the model wrote is lost, and the next turn can correct it.

/** The call's arguments as a JSON value (empty arguments are `{}`), or undefined when not JSON. */
export function parseCallArguments(text: string): { value: unknown } | undefined {
  if (text.trim() === '') return { value: {} };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** The text an answer carries for a call whose arguments are not JSON: `name(arguments)`. */
export function unreadableCallText(name: string, text: string): string {
  return `${name}(${text})`;
}
