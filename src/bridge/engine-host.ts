import type {
  EnginePortGranted,
  EnginePortRefused,
  EnginePortWanted,
  HostAnnouncement,
  HostWanted,
} from './frames.js';

/** Options of {@link startEngineHost}. */
export interface EngineHostOptions {
  /** Creates the engine (a worker) and returns a port that answers request frames. */
  startEngine: () => { connect(): MessagePort };
  /** Web Lock that elects one tab per origin; default `lmtab-engine`. */
  lockName?: string;
  /** Told when this tab becomes the engine host. */
  onHost?: () => void;
}

/** What a tab knows of its role. */
export interface EngineHostHandle {
  /** Whether this tab holds the engine. */
  isHost(): boolean;
  /** A direct port to the engine, when this tab holds it (the relay connection uses it). */
  connect(): MessagePort | undefined;
}

/**
 * Elects one tab as the engine host with a Web Lock. The holder starts the engine and hands the
 * service worker a port to it; the others wait in the lock's queue, and the next one takes over
 * when the holder closes. The service worker asks again (`lmtab:need-host`) after it restarts.
 */
export function startEngineHost(options: EngineHostOptions): EngineHostHandle {
  const container = navigator.serviceWorker;
  let engine: { connect(): MessagePort } | undefined;

  const announce = async () => {
    if (!engine) return;
    const registration = await container.ready;
    const port = engine.connect();
    registration.active?.postMessage({ type: 'lmtab:host' } satisfies HostAnnouncement, [port]);
  };

  container.addEventListener('message', (event: MessageEvent<HostWanted | EnginePortWanted>) => {
    if (event.data?.type === 'lmtab:need-host') void announce();
    if (event.data?.type === 'lmtab:engine-port' && event.ports[0]) {
      grantPort(event.ports[0]);
    }
  });
  // A page's own port to the engine, passed on by the service worker.
  const grantPort = (reply: MessagePort) => {
    if (engine === undefined) {
      reply.postMessage({
        type: 'lmtab:engine-port-refused',
        message: 'This tab does not run the lmtab engine (another tab holds it): try again.',
      } satisfies EnginePortRefused);
      return;
    }
    const port = engine.connect();
    reply.postMessage({ type: 'lmtab:engine-port-granted' } satisfies EnginePortGranted, [port]);
    reply.close();
  };
  // A new service worker (an update) starts without a port: announce to it too.
  container.addEventListener('controllerchange', () => void announce());

  void navigator.locks.request(options.lockName ?? 'lmtab-engine', async () => {
    engine = options.startEngine();
    options.onHost?.();
    await announce();
    // Hold the lock for the life of the tab.
    await new Promise<never>(() => undefined);
  });

  return {
    isHost: () => engine !== undefined,
    connect: () => engine?.connect(),
  };
}
