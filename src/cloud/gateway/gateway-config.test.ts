import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayConfigReader, parseGatewayConfig } from './gateway-config.js';

const route = {
  org: 'acme',
  app: 'chat',
  auth: 'private',
  upstream: 'http://acme-chat.lmtab.svc.cluster.local',
};
let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lmtab-gateway-config-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('parseGatewayConfig', () => {
  it('reads routes and refuses broken ones', () => {
    expect(parseGatewayConfig(JSON.stringify({ routes: [route] }))).toEqual({ routes: [route] });
    expect(() => parseGatewayConfig('{')).toThrow(/Expected JSON in the gateway config/);
    expect(() => parseGatewayConfig('{"routes": {}}')).toThrow(/Expected \{"routes": \[...\]\}/);
    expect(() =>
      parseGatewayConfig(JSON.stringify({ routes: [{ ...route, auth: 'open' }] })),
    ).toThrow(/auth \("private" or "public"\)/);
    expect(() =>
      parseGatewayConfig(JSON.stringify({ routes: [{ ...route, org: 'Acme' }] })),
    ).toThrow(/Expected an org/);
  });
});

describe('createGatewayConfigReader', () => {
  it('follows changes and keeps the last good routes when the file breaks', async () => {
    const file = join(folder, 'gateway.json');
    const errors: string[] = [];
    const read = createGatewayConfigReader(file, (error) => errors.push(error.message));
    await expect(read()).rejects.toThrow(`Expected a gateway config at ${file}, got no such file.`);
    await writeFile(file, JSON.stringify({ routes: [route] }));
    expect(await read()).toEqual([route]);
    await writeFile(file, JSON.stringify({ routes: [route, { ...route, app: 'other' }] }));
    await utimes(file, new Date(), new Date(Date.now() + 5000));
    expect((await read()).map((each) => each.app)).toEqual(['chat', 'other']);
    await writeFile(file, '{ nope');
    await utimes(file, new Date(), new Date(Date.now() + 10000));
    expect(await read()).toHaveLength(2);
    expect(errors).toEqual([expect.stringMatching(/Expected JSON in the gateway config/)]);
  });
});
