/** Writes a byte count with a readable size, e.g. `33554432 bytes (32 MiB)`, `512 bytes`. */
export function describeBytes(bytes: number): string {
  const round = (n: number) => Math.round(n * 100) / 100;
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${bytes} bytes (${round(bytes / 1024)} KiB)`;
  return `${bytes} bytes (${round(bytes / 1024 / 1024)} MiB)`;
}
