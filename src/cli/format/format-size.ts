/** Writes a byte count as Ollama's `list` does, in decimal units: `229 MB`, `1.5 GB`, `512 B`. */
export function formatSize(bytes: number): string {
  const units: [number, string][] = [
    [1e12, 'TB'],
    [1e9, 'GB'],
    [1e6, 'MB'],
    [1e3, 'KB'],
  ];
  for (const [size, unit] of units) {
    if (bytes < size) continue;
    const value = bytes / size;
    // Ollama's format.HumanBytes: whole numbers from 10 up, one decimal below unless whole.
    if (value >= 10 || Number.isInteger(value)) return `${Math.floor(value)} ${unit}`;
    return `${value.toFixed(1)} ${unit}`;
  }
  return `${Math.max(0, Math.round(bytes))} B`;
}
