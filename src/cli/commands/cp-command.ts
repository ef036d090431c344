import type { CliContext } from '../cli-context.js';

/** `lmtab cp SOURCE DESTINATION`: stores a model under a second name. */
export async function cpCommand(
  context: CliContext,
  source: string,
  destination: string,
): Promise<void> {
  const client = await context.connect();
  await client.copy(source, destination);
  context.stdout.write(`copied '${source}' to '${destination}'\n`);
}
