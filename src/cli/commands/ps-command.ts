import type { CliContext } from '../cli-context.js';
import { formatRelativeTime } from '../format/format-relative-time.js';
import { formatSize } from '../format/format-size.js';
import { formatTable } from '../format/format-table.js';
import { shortDigest } from './list-command.js';
import type { RunningModel } from '../relay-client.js';

/** `lmtab ps`: the models in memory, as NAME, ID, SIZE, PROCESSOR, CONTEXT, UNTIL. */
export async function psCommand(context: CliContext): Promise<void> {
  const client = await context.connect();
  context.stdout.write(formatRunningModels(await client.ps(), context.clock()));
}

/** The `ps` table. */
export function formatRunningModels(models: readonly RunningModel[], now: number): string {
  return formatTable([
    ['NAME', 'ID', 'SIZE', 'PROCESSOR', 'CONTEXT', 'UNTIL'],
    ...models.map((m) => {
      const expires = Date.parse(m.expires_at);
      return [
        m.name,
        shortDigest(m.digest),
        formatSize(m.size),
        processor(m.size, m.size_vram),
        m.context_length === undefined ? '' : String(m.context_length),
        expires < now ? 'Stopping...' : formatRelativeTime(expires, now),
      ];
    }),
  ]);
}

function processor(size: number, vram: number): string {
  if (vram <= 0) return '100% CPU';
  if (vram >= size) return '100% GPU';
  const gpu = Math.round((vram / size) * 100);
  return `${100 - gpu}%/${gpu}% CPU/GPU`;
}
