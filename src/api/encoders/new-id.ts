/** A random id with a prefix, e.g. `chatcmpl-1f0c...` (24 hex digits). */
export function newId(prefix: string): string {
  // getRandomValues, unlike randomUUID, also works on plain-http LAN origins (no secure context).
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
