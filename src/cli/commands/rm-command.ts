import type { CliContext } from '../cli-context.js';

/** `lmtab rm MODEL...`: deletes models (unloading them first), as Ollama's `rm` does. */
export async function rmCommand(context: CliContext, models: readonly string[]): Promise<void> {
  const client = await context.connect();
  for (const model of models) {
    await client.delete(model);
    context.stdout.write(`deleted '${model}'\n`);
  }
}
