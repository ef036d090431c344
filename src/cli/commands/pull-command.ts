import type { CliContext } from '../cli-context.js';
import { createProgressDisplay } from '../format/progress-display.js';
import { pullModel } from '../models/pull-model.js';

/** `lmtab pull REF`: downloads a hub model into the engine's store, with a progress bar. */
export async function pullCommand(context: CliContext, ref: string): Promise<void> {
  const client = await context.connect();
  const display = createProgressDisplay({
    write: (text) => context.stderr.write(text),
    isTTY: context.stderr.isTTY === true,
    columns: context.stderr.columns ?? 80,
  });
  const name = await pullModel(client, ref, display);
  if (name !== ref) context.stderr.write(`stored as ${name}\n`);
}
