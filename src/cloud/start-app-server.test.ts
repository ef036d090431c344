import { describe, expect, it } from 'vitest';
import { defineApp } from './define-app.js';
import { startAppServer } from './start-app-server.js';
import { testPorts } from '../../tests/support/test-ports.js';

const definition = defineApp({ model: 'hf.co/acme/Tiny-GGUF:Q4_K_M', contextLength: 2048 });

describe('startAppServer', () => {
  it('is starting until the model is ready, then serving', async () => {
    let finish: (name: string) => void = () => undefined;
    let closed = 0;
    const server = await startAppServer({
      definition,
      host: '127.0.0.1',
      port: testPorts.appServerUnit,
      startRelay: async () => ({
        url: 'http://127.0.0.1:41345',
        close: async () => void (closed += 1),
      }),
      prepare: (options) => {
        expect(options).toMatchObject({
          relayUrl: 'http://127.0.0.1:41345',
          model: definition.model,
          contextLength: 2048,
        });
        options.onStatus?.('pulling 0123 50%');
        return new Promise((resolve) => (finish = resolve));
      },
    });
    try {
      expect(server.state()).toEqual({ ready: false, detail: 'pulling 0123 50%' });
      expect((await fetch(`${server.front.url}/health/ready`)).status).toBe(503);
      finish('hf.co/acme/Tiny-GGUF:Q4_K_M');
      expect(await server.ready).toBe('hf.co/acme/Tiny-GGUF:Q4_K_M');
      expect(server.state()).toEqual({
        ready: true,
        detail: 'serving hf.co/acme/Tiny-GGUF:Q4_K_M',
      });
      expect((await fetch(`${server.front.url}/health/ready`)).status).toBe(200);
    } finally {
      await server.close();
    }
    expect(closed).toBe(1);
  });

  it('reports a failed pull in its state and through ready', async () => {
    const server = await startAppServer({
      definition,
      host: '127.0.0.1',
      port: testPorts.appServerUnit,
      startRelay: async () => ({ url: 'http://127.0.0.1:41345', close: async () => undefined }),
      prepare: async () => {
        throw new Error('no such repo');
      },
    });
    await expect(server.ready).rejects.toThrow('no such repo');
    expect(server.state()).toEqual({ ready: false, detail: 'failed: no such repo' });
    await server.close();
  });
});
