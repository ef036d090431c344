import type { EnginePortGranted, EnginePortRefused, EnginePortWanted } from '../bridge/wire.js';

/** The Web Lock the engine host tab holds (`startEngineHost`'s default). */
const engineLock = 'lmtab-engine';

/** Milliseconds to wait for the service worker and the host tab to hand over a port. */
const grantWaitMs = 20_000;

/** A page's own port to the engine, and how to tell that the tab behind it is still there. */
export interface EngineConnection {
  port: MessagePort;
  /** Resolves false once the host tab has closed (its engine lock is released). */
  isHostAlive(): Promise<boolean>;
}

/**
 * Asks the service worker for a port to the engine (it passes the ask to the tab that runs the
 * engine, which answers with a fresh port): the way a page carries exchanges a fetch cannot, such
 * as a Realtime session whose body streams while its answer streams back.
 */
export async function connectEngine(): Promise<EngineConnection> {
  const container = navigator.serviceWorker;
  const worker = container?.controller ?? (await container?.ready)?.active;
  if (!worker) {
    throw new Error(
      'lmtab: no service worker controls this page, so the engine cannot be reached from it: open the page from the lmtab app’s origin.',
    );
  }
  const channel = new MessageChannel();
  const answer = new Promise<MessageEvent<EnginePortGranted | EnginePortRefused>>(
    (resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('lmtab: no tab answered with the engine in 20 s.')),
        grantWaitMs,
      );
      channel.port1.onmessage = (event) => {
        clearTimeout(timer);
        resolve(event);
      };
    },
  );
  worker.postMessage({ type: 'lmtab:engine-port' } satisfies EnginePortWanted, [channel.port2]);
  const event = await answer;
  channel.port1.close();
  const data = event.data;
  const port = event.ports[0];
  if (data.type !== 'lmtab:engine-port-granted' || !port) {
    throw new Error(
      `lmtab: ${data.type === 'lmtab:engine-port-refused' ? data.message : 'no engine port came back.'}`,
    );
  }
  // The tab holding the engine lock now is the one that answered (the service worker found it so);
  // the port is good while that holder keeps the lock. Compared by the lock's own client id.
  const holder = await lockHolder();
  return {
    port,
    isHostAlive: async () => holder !== undefined && (await lockHolder()) === holder,
  };
}

/** The client id of the tab holding the engine lock, if one does. */
async function lockHolder(): Promise<string | undefined> {
  const { held = [] } = await navigator.locks.query();
  return held.find((lock) => lock.name === engineLock)?.clientId;
}
