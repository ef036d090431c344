import type { RelaySession } from './relay-health.js';
import { relaySessionPath } from './socket-frames.js';

/**
 * What the relay that served this page tells it (the engine secret, the API key) once the page
 * shows it holds the engine `secret` (from the link the relay printed): undefined when no relay
 * served it, or when the relay does not tell this page (no or a wrong secret, another device,
 * another origin).
 */
export async function fetchRelaySession(
  secret: string,
  fetcher: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init),
): Promise<RelaySession | undefined> {
  try {
    const response = await fetcher(relaySessionPath, {
      cache: 'no-store',
      headers: { Authorization: `Bearer ${secret}` },
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as Partial<RelaySession>;
    return typeof body.engineSecret === 'string' ? (body as RelaySession) : undefined;
  } catch {
    return undefined;
  }
}
