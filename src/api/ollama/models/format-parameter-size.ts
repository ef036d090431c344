/** Writes a parameter count as Ollama does: `354M`, `1.2B`, `8.0B`, `13B`. */
export function formatParameterSize(count: number): string {
  if (count >= 1e9) {
    const billions = count / 1e9;
    return `${billions >= 10 ? Math.round(billions) : billions.toFixed(1)}B`;
  }
  if (count >= 1e6) return `${Math.round(count / 1e6)}M`;
  if (count >= 1e3) return `${Math.round(count / 1e3)}K`;
  return String(count);
}
