import { hostname as osHostname } from 'node:os';

/** What {@link isRelayHost} accepts besides loopback names. */
export interface RelayNames {
  /** The address the relay is bound to (`127.0.0.1`, `0.0.0.0`, a LAN address...). */
  host: string;
  /** The machine's addresses other devices use (see `lanAddresses`); empty on loopback. */
  lanAddresses: readonly string[];
  /** Extra names people reach the relay by (`--allowed-host`), e.g. `lmtab.home.arpa`. */
  allowedHosts: readonly string[];
  /** This machine's name; default `os.hostname()`. */
  hostname?: string;
}

/** The name in a `Host` header, lower-cased, without port, brackets or trailing dot. */
export function hostName(header: string): string {
  let name = header.trim().toLowerCase();
  if (name.startsWith('[')) {
    const end = name.indexOf(']');
    name = end === -1 ? name.slice(1) : name.slice(1, end);
  } else if (name.split(':').length === 2) {
    name = name.slice(0, name.indexOf(':'));
  }
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** Whether `name` (a host name or address) is this machine's loopback. */
export function isLoopbackName(name: string): boolean {
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name) ||
    name === '::1' ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  );
}

/**
 * Whether a request's `Host` header names this relay, as Ollama checks it: a loopback name, the
 * bound address, the machine's LAN addresses and name (when bound beyond loopback), or an
 * `--allowed-host` entry. Anything else is a page on another site that got its name to resolve to
 * this machine (DNS rebinding) and must be refused. A request without `Host` (HTTP/1.0) passes.
 */
export function isRelayHost(header: string | undefined, names: RelayNames): boolean {
  if (header === undefined || header === '') return true;
  const name = hostName(header);
  if (isLoopbackName(name)) return true;
  const machine = (names.hostname ?? osHostname()).toLowerCase();
  const known = [
    names.host,
    ...names.lanAddresses,
    ...names.allowedHosts.map(hostName),
    ...(names.lanAddresses.length > 0 ? [machine, `${machine}.local`] : []),
  ];
  return known.some((entry) => hostName(entry) === name);
}
