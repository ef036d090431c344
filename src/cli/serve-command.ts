import { createRelay } from '../relay/index.js';

/** Options of {@link serveCommand}. */
export interface ServeOptions {
  /** Interface to listen on. */
  host: string;
  port: number;
}

/** `lmtab serve`: runs the relay (the app and the API) until interrupted. */
export async function serveCommand(
  options: ServeOptions,
  meta: { appDir: string; version: string },
): Promise<void> {
  const relay = await createRelay({
    appDir: meta.appDir,
    host: options.host,
    port: options.port,
    version: meta.version,
  });
  const shown = options.host === '0.0.0.0' ? relay.url.replace('0.0.0.0', 'localhost') : relay.url;
  process.stdout.write(`lmtab ${meta.version} serving the app and API at ${shown}\n`);
  const stop = () => void relay.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
