import { describe, expect, it } from 'vitest';
import { hostName, isRelayHost } from './host-check.js';

const loopback = { host: '127.0.0.1', lanAddresses: [], allowedHosts: [], hostname: 'box' };
const lan = { host: '0.0.0.0', lanAddresses: ['192.168.1.5'], allowedHosts: [], hostname: 'box' };

describe('isRelayHost', () => {
  it('accepts loopback names with or without a port, and a request without Host', () => {
    for (const host of [
      'localhost:1234',
      '127.0.0.1:1234',
      '127.0.0.2',
      '[::1]:1234',
      'app.localhost',
    ]) {
      expect(isRelayHost(host, loopback), host).toBe(true);
    }
    expect(isRelayHost(undefined, loopback)).toBe(true);
  });

  it('refuses other names: DNS rebinding (evil.example resolving to 127.0.0.1)', () => {
    for (const host of [
      'evil.example',
      'evil.example:1234',
      'localhost.evil.example',
      '192.168.1.5:1234',
      'box',
    ]) {
      expect(isRelayHost(host, loopback), host).toBe(false);
    }
  });

  it('bound to 0.0.0.0: also the LAN addresses and the machine name, and --allowed-host entries', () => {
    expect(isRelayHost('192.168.1.5:1234', lan)).toBe(true);
    expect(isRelayHost('BOX:1234', lan)).toBe(true);
    expect(isRelayHost('box.local', lan)).toBe(true);
    expect(isRelayHost('10.0.0.9:1234', lan)).toBe(false);
    expect(isRelayHost('evil.example', lan)).toBe(false);
    const named = { ...loopback, allowedHosts: ['lmtab.home.arpa'] };
    expect(isRelayHost('lmtab.home.arpa:1234', named)).toBe(true);
    expect(isRelayHost('lmtab.home.arpa.', named)).toBe(true);
  });

  it('reads the name out of a Host header', () => {
    expect(hostName('[::1]:80')).toBe('::1');
    expect(hostName('Example.COM:8080')).toBe('example.com');
    expect(hostName('::1')).toBe('::1');
  });
});
