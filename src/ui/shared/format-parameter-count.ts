/** Formats a parameter count the way model names do: `350M`, `1.2B`, `86K`. */
export function formatParameterCount(count: number): string {
  const steps: Array<[number, string]> = [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'K'],
  ];
  for (const [size, suffix] of steps) {
    if (count >= size) {
      const value = count / size;
      return `${value >= 100 ? Math.round(value) : Number(value.toPrecision(2))}${suffix}`;
    }
  }
  return String(count);
}
