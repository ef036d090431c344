/** A copy without the keys whose value is `undefined` or `null` (`0`, `false` and `""` stay). */
export function omitUndefined<T extends object>(value: T): { [K in keyof T]?: NonNullable<T[K]> } {
  const result: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry !== undefined && entry !== null) result[key] = entry;
  }
  return result as { [K in keyof T]?: NonNullable<T[K]> };
}
