import { LmtabError } from '../errors/index.js';
import { defaultRelayPort } from '../relay/index.js';

/**
 * The relay's base URL from `LMTAB_HOST`, read as Ollama reads `OLLAMA_HOST`: `host`, `host:port`,
 * `:port`, `http(s)://host[:port]` and IPv6 in brackets; default this machine on
 * {@link defaultRelayPort}.
 */
export function resolveHost(value: string | undefined): URL {
  const text = (value ?? '').trim();
  if (text === '') return new URL(`http://127.0.0.1:${defaultRelayPort}`);
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  // `:port` alone means this machine, as OLLAMA_HOST does.
  const address = text.startsWith(':') ? `127.0.0.1${text}` : text;
  let url: URL;
  try {
    url = new URL(hasScheme ? address : `http://${address}`);
  } catch (error) {
    throw new LmtabError(
      'invalid_request',
      `LMTAB_HOST is not an address: expected host, host:port or http://host:port, got "${value}".`,
      { cause: error },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LmtabError('invalid_request', `LMTAB_HOST must use http or https, got "${value}".`);
  }
  // Without a scheme the relay's port is the default; with one, the scheme's own (80, 443).
  const authority = address.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split('/')[0] ?? '';
  if (!hasScheme && !/:\d+$/.test(authority)) url.port = String(defaultRelayPort);
  url.pathname = url.pathname.replace(/\/+$/, '');
  url.search = '';
  url.hash = '';
  return url;
}

/** Whether the relay at this URL is one this machine may start itself (a local address). */
export function isLocalHost(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]', '0.0.0.0', '[::]'].includes(url.hostname);
}
