import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

/**
 * The addresses other devices can use to reach a server listening on `host`: every external
 * interface's address for a wildcard host (IPv4 for `0.0.0.0`, both families for `::`), the host
 * itself when it is a specific external address, none for loopback.
 */
export function lanAddresses(
  host: string,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
): string[] {
  const all = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((info) => !info.internal && !(info.family === 'IPv6' && info.scopeid !== 0));
  if (host === '0.0.0.0') return all.filter((i) => i.family === 'IPv4').map((i) => i.address);
  if (host === '::') return all.map((i) => i.address);
  const loopback = host === 'localhost' || host === '::1' || host.startsWith('127.');
  return loopback ? [] : [host];
}
