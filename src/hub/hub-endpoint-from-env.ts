/**
 * The hub endpoint Node code should use: `HF_ENDPOINT`, the variable the official Python client
 * reads, when set and not blank; undefined (the default hub) otherwise.
 */
export function hubEndpointFromEnv(
  env: Record<string, string | undefined> = globalThis.process?.env ?? {},
): string | undefined {
  const value = env.HF_ENDPOINT?.trim();
  return value === undefined || value === '' ? undefined : value;
}
