import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { testPorts } from '../support/test-ports.js';

describe('testPorts', () => {
  const ports = Object.entries(testPorts);

  it('gives every use its own port', () => {
    const owners = new Map<number, string>();
    for (const [name, port] of ports) {
      expect(
        owners.get(port),
        `${name} and ${owners.get(port)} share port ${port}`,
      ).toBeUndefined();
      owners.set(port, name);
    }
  });

  it("keeps clear of this machine's ephemeral port range", async () => {
    const text = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '');
    const [low, high] = text.trim().split(/\s+/).map(Number);
    // Linux's default range where the kernel does not say (another OS).
    const range = low && high ? { low, high } : { low: 32768, high: 60999 };
    for (const [name, port] of ports) {
      const inside = port >= range.low && port <= range.high;
      expect(
        inside,
        `${name} (${port}) lies in the ephemeral range ${range.low}-${range.high}`,
      ).toBe(false);
    }
  });
});
