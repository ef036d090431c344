/**
 * Deepest nesting of arrays and objects a request body may have. Code that walks a parsed body
 * (the lone-surrogate check, zod, schema checks) recurses once per level, so a body nested
 * 100,000 deep would overflow the stack; real requests (JSON Schemas of tools included) stay far
 * below this, and serde_json draws its line at the same depth.
 */
export const maxJsonNesting = 128;

/** Where a JSON text first goes deeper than the limit. */
export interface TooDeep {
  /** Character offset of the bracket that opened the level past the limit. */
  offset: number;
}

/**
 * Scans JSON text for nesting deeper than `limit`, without parsing or recursing: a linear pass
 * that counts brackets outside strings. Undefined when the text stays within the limit (or is not
 * JSON at all: the parser says what is wrong with it then).
 */
export function findTooDeep(text: string, limit: number = maxJsonNesting): TooDeep | undefined {
  let depth = 0;
  let inString = false;
  for (let offset = 0; offset < text.length; offset += 1) {
    const char = text.charCodeAt(offset);
    if (inString) {
      if (char === 0x5c) offset += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > limit) return { offset };
    } else if (char === 0x5d || char === 0x7d) depth -= 1;
  }
  return undefined;
}
