import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** One file as it was before `lmtab launch` first wrote it. */
interface BackedUpFile {
  path: string;
  /** Its text then; null where there was no file. */
  before: string | null;
}

/** What the backup of one agent holds. */
interface Backup {
  agent: string;
  files: BackedUpFile[];
}

/** What {@link restoreConfig} did to one file. */
export interface RestoredFile {
  path: string;
  /** `restored`: the earlier text is back; `removed`: there was no file before lmtab's. */
  action: 'restored' | 'removed';
}

/**
 * The backups of the agents' configurations, one JSON file per agent in `dir`
 * (`LMTAB_HOME/launch`). A backup keeps each file as it was before lmtab first wrote it: later
 * launches write again without touching it, so a restore always returns the person's own.
 */
export function createConfigBackups(dir: string) {
  const backupPath = (agent: string) => join(dir, `${agent}.backup.json`);

  async function read(agent: string): Promise<Backup | undefined> {
    const text = await readFile(backupPath(agent), 'utf8').catch(ignoreMissing);
    return text === undefined ? undefined : (JSON.parse(text) as Backup);
  }

  return {
    /**
     * Rewrites `path` for `agent` with `update` of its current text, first keeping that text in
     * the backup (unless the backup has the file already).
     */
    async write(
      agent: string,
      path: string,
      update: (current: string | undefined) => string,
    ): Promise<void> {
      const current = await readFile(path, 'utf8').catch(ignoreMissing);
      // Computed first: a file lmtab cannot read as expected is left alone, with no backup.
      const text = update(current);
      const backup = (await read(agent)) ?? { agent, files: [] };
      if (!backup.files.some((file) => file.path === path)) {
        backup.files.push({ path, before: current ?? null });
        await mkdir(dir, { recursive: true });
        // The backup lands before the file changes: a failure leaves the person's file as it was.
        await writeFile(backupPath(agent), `${JSON.stringify(backup, null, 2)}\n`, { mode: 0o600 });
      }
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
    },

    /** Puts every file of `agent`'s backup back as it was, then forgets the backup. */
    async restore(agent: string): Promise<RestoredFile[]> {
      const backup = await read(agent);
      if (backup === undefined) return [];
      const restored: RestoredFile[] = [];
      for (const file of backup.files) {
        if (file.before === null) {
          await rm(file.path, { force: true });
          restored.push({ path: file.path, action: 'removed' });
        } else {
          await mkdir(dirname(file.path), { recursive: true });
          await writeFile(file.path, file.before);
          restored.push({ path: file.path, action: 'restored' });
        }
      }
      await rm(backupPath(agent), { force: true });
      return restored;
    },
  };
}

/** The backups of {@link createConfigBackups}. */
export type ConfigBackups = ReturnType<typeof createConfigBackups>;

function ignoreMissing(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw error;
}
