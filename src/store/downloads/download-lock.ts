/**
 * Takes the Web Lock that lets one context (tab, engine worker) at a time download a model, so two
 * tabs, or a tab and `/api/pull`, never write the same chunks. Resolves to the release function, or
 * to undefined when someone else holds the lock. Without the Locks API (Node) there is nothing to
 * share the store with, and the lock is always granted.
 */
export async function acquireDownloadLock(id: string): Promise<(() => void) | undefined> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (locks === undefined) return () => undefined;
  return new Promise((resolve, reject) => {
    locks
      .request(`lmtab-download:${id}`, { ifAvailable: true }, (lock) => {
        if (lock === null) {
          resolve(undefined);
          return undefined;
        }
        // Held until the download calls the release function.
        return new Promise<void>((release) => resolve(release));
      })
      .catch(reject);
  });
}
