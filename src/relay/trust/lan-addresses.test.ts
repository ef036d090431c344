import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { lanAddresses } from './lan-addresses.js';

const info = (address: string, family: 'IPv4' | 'IPv6', internal = false, scopeid = 0) =>
  ({
    address,
    family,
    internal,
    scopeid,
    netmask: '',
    mac: '',
    cidr: null,
  }) as NetworkInterfaceInfo;

const interfaces = {
  lo: [info('127.0.0.1', 'IPv4', true), info('::1', 'IPv6', true)],
  eth0: [
    info('192.168.1.5', 'IPv4'),
    info('fe80::1', 'IPv6', false, 2),
    info('2001:db8::5', 'IPv6'),
  ],
};

describe('lanAddresses', () => {
  it('lists external addresses for wildcard hosts', () => {
    expect(lanAddresses('0.0.0.0', interfaces)).toEqual(['192.168.1.5']);
    expect(lanAddresses('::', interfaces)).toEqual(['192.168.1.5', '2001:db8::5']);
  });

  it('lists none for loopback and the host itself otherwise', () => {
    expect(lanAddresses('127.0.0.1', interfaces)).toEqual([]);
    expect(lanAddresses('localhost', interfaces)).toEqual([]);
    expect(lanAddresses('192.168.1.5', interfaces)).toEqual(['192.168.1.5']);
  });
});
