// Only logs use this: the relay and the tab note which model a request named, nothing answers by it.

/** Bodies up to this size are parsed whole; longer ones (images) are searched at the start only. */
const parseWholeBytes = 64 * 1024;
const modelField = /"model"\s*:\s*"((?:[^"\\]|\\.){1,256})"/;

/** The top-level `model` of a JSON request body, for a request log; undefined when absent. */
export function readModelName(body: Uint8Array): string | undefined {
  const text = new TextDecoder().decode(body.subarray(0, parseWholeBytes));
  if (body.byteLength <= parseWholeBytes) {
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === 'object' && value !== null && 'model' in value) {
        return typeof value.model === 'string' ? value.model : undefined;
      }
      return undefined;
    } catch {
      // Not JSON: fall through to the search, which finds nothing in most such bodies.
    }
  }
  const match = modelField.exec(text);
  if (!match) return undefined;
  try {
    return JSON.parse(`"${match[1]}"`) as string;
  } catch {
    return undefined;
  }
}
