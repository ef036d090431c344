import { afterEach, describe, expect, it } from 'vitest';
import { loadHubSettings } from '../hub/index.js';
import { loadEngineSettings } from '../engine/index.js';
import { chromiumArgsFromEnv } from './chromium-args.js';
import {
  ENGINE_SETTINGS_KEY,
  engineThreadsFromEnv,
  headlessStorage,
  HUB_SETTINGS_KEY,
} from './headless-storage.js';

const original = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');

function useStorage(entries: Record<string, string>): void {
  const map = new Map(Object.entries(entries));
  Object.defineProperty(globalThis, 'localStorage', {
    configurable: true,
    value: {
      getItem: (key: string) => map.get(key) ?? null,
      setItem: (key: string, value: string) => map.set(key, value),
    },
  });
}

afterEach(() => {
  if (original) Object.defineProperty(globalThis, 'localStorage', original);
  else delete (globalThis as { localStorage?: unknown }).localStorage;
});

describe('headlessStorage', () => {
  it('gives the page the hub endpoint and token of the environment', () => {
    expect(headlessStorage({ HF_ENDPOINT: ' http://127.0.0.1:41346 ', HF_TOKEN: 'hf_x' })).toEqual({
      [HUB_SETTINGS_KEY]: '{"endpoint":"http://127.0.0.1:41346","token":"hf_x"}',
    });
    expect(headlessStorage({ HF_ENDPOINT: '', HF_TOKEN: ' ' })).toEqual({});
  });

  it('uses the keys the page reads its settings from', () => {
    const storage = headlessStorage(
      { HF_ENDPOINT: 'http://hub.test' },
      { contextLength: 2048, parallel: 2 },
    );
    useStorage(storage);
    expect(loadHubSettings()).toEqual({ endpoint: 'http://hub.test' });
    expect(loadEngineSettings()).toEqual({ contextLength: 2048, parallel: 2 });
    expect(Object.keys(storage)).toEqual([HUB_SETTINGS_KEY, ENGINE_SETTINGS_KEY]);
  });

  it('gives the engine the threads of LMTAB_THREADS, and refuses a count that is not one', () => {
    useStorage(headlessStorage({ LMTAB_THREADS: ' 1 ' }));
    expect(loadEngineSettings()).toEqual({ threads: 1 });
    useStorage(headlessStorage({ LMTAB_THREADS: '3' }, { contextLength: 2048, parallel: 2 }));
    expect(loadEngineSettings()).toEqual({ contextLength: 2048, parallel: 2, threads: 3 });
    expect(headlessStorage({ LMTAB_THREADS: '' })).toEqual({});
    for (const bad of ['0', '1.5', 'two', '-1', '257']) {
      expect(() => engineThreadsFromEnv({ LMTAB_THREADS: bad })).toThrow(
        `LMTAB_THREADS: expected a whole number of threads from 1 to 256, received "${bad}"`,
      );
    }
  });
});

describe('chromiumArgsFromEnv', () => {
  it('splits LMTAB_CHROMIUM_ARGS on spaces', () => {
    expect(
      chromiumArgsFromEnv({ LMTAB_CHROMIUM_ARGS: ' --no-sandbox  --use-angle=vulkan ' }),
    ).toEqual(['--no-sandbox', '--use-angle=vulkan']);
    expect(chromiumArgsFromEnv({})).toEqual([]);
  });
});
