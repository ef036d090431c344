/** Web Lock names that mark the files of an upload in progress: `lmtab-upload:<fileId>`. */
const prefix = 'lmtab-upload:';

/** The files one store operation (an import, an upload) is writing. */
export interface UploadSession {
  /** Marks a file as being written, before its first chunk; resolves once marked. */
  hold(fileId: string): Promise<void>;
  /** The operation is over (its record saved, or its chunks deleted): unmarks its files. */
  end(): void;
}

function locksApi(): LockManager | undefined {
  return (globalThis.navigator as Navigator | undefined)?.locks;
}

/**
 * Marks the files an operation writes with Web Locks, which the browser releases by itself when
 * the tab or worker holding them dies: chunks of an unmarked file that no record names are then
 * orphans of an upload that never finished (see `sweepOrphanChunks`). Without the Locks API
 * (Node) nothing is marked, and nothing is swept either.
 */
export function uploadSession(): UploadSession {
  const releases: (() => void)[] = [];
  return {
    async hold(fileId) {
      const locks = locksApi();
      if (locks === undefined) return;
      releases.push(
        await new Promise<() => void>((resolve, reject) => {
          locks
            .request(`${prefix}${fileId}`, () => new Promise<void>((release) => resolve(release)))
            .catch(reject);
        }),
      );
    },
    end() {
      for (const release of releases.splice(0)) release();
    },
  };
}

/**
 * The files some context (any tab or worker of this origin) is writing now; undefined when that
 * cannot be told (no Locks API), in which case nothing may be swept.
 */
export async function filesBeingWritten(): Promise<Set<string> | undefined> {
  const locks = locksApi();
  if (locks === undefined) return undefined;
  const { held = [], pending = [] } = await locks.query();
  return new Set(
    [...held, ...pending]
      .map((lock) => lock.name ?? '')
      .filter((name) => name.startsWith(prefix))
      .map((name) => name.slice(prefix.length)),
  );
}
