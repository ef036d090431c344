import { LmtabError } from '../../errors/index.js';
import type { CliContext } from '../cli-context.js';

/** `lmtab stop MODEL`: unloads a running model now (`keep_alive: 0`). */
export async function stopCommand(context: CliContext, model: string): Promise<void> {
  const client = await context.connect();
  const running = await client.ps();
  const name = running.find((m) => m.name === model || `${m.name}:latest` === model)?.name;
  if (name === undefined) {
    const names = running.map((m) => m.name);
    throw new LmtabError(
      'model_not_found',
      `Couldn't find model "${model}" to stop: ${names.length === 0 ? 'no model is running' : `running: ${names.join(', ')}`}.`,
    );
  }
  await client.unload(name);
}
