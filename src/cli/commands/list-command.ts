import type { CliContext } from '../cli-context.js';
import { formatRelativeTime } from '../format/format-relative-time.js';
import { formatSize } from '../format/format-size.js';
import { formatTable } from '../format/format-table.js';
import type { TagsModel } from '../relay-client.js';

/** `lmtab list`: the stored models as NAME, ID, SIZE, MODIFIED. */
export async function listCommand(context: CliContext): Promise<void> {
  const client = await context.connect();
  context.stdout.write(formatModelList(await client.tags(), context.clock()));
}

/** The `list` table; ID is the first 12 hex digits of the model file's sha256. */
export function formatModelList(models: readonly TagsModel[], now: number): string {
  return formatTable([
    ['NAME', 'ID', 'SIZE', 'MODIFIED'],
    ...models.map((m) => [
      m.name,
      shortDigest(m.digest),
      formatSize(m.size),
      formatRelativeTime(Date.parse(m.modified_at), now),
    ]),
  ]);
}

/** The first 12 hex digits of a digest (`sha256:` dropped). */
export function shortDigest(digest: string): string {
  return digest.replace(/^sha256[:-]/, '').slice(0, 12);
}
