/** Turns a wire `stop` (one string or a list) into a list; absent when it holds no sequence. */
export function normalizeStop(
  stop: string | readonly string[] | null | undefined,
): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  // An empty stop sequence would end every generation at once; no client means that.
  const list = (typeof stop === 'string' ? [stop] : [...stop]).filter((s) => s !== '');
  return list.length > 0 ? list : undefined;
}
