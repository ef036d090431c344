import { afterEach, describe, expect, it, vi } from 'vitest';
import { hubEndpointFromEnv } from './hub-endpoint-from-env.js';
import { hubHeadersFor, loadHubSettings, saveHubSettings } from './hub-settings.js';

describe('hub settings', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('round-trips through localStorage, dropping blanks', () => {
    const items = new Map<string, string>();
    vi.stubGlobal('localStorage', {
      getItem: (key: string) => items.get(key) ?? null,
      setItem: (key: string, value: string) => items.set(key, value),
    });
    expect(loadHubSettings()).toEqual({});
    saveHubSettings({ endpoint: ' http://127.0.0.1:9000 ', token: '  ' });
    expect(loadHubSettings()).toEqual({ endpoint: 'http://127.0.0.1:9000' });
    items.set('lmtab.hub-settings', '{not json');
    expect(loadHubSettings()).toEqual({});
  });

  it('sends the token only to the configured hub', () => {
    const settings = { endpoint: 'http://127.0.0.1:9000/mirror', token: 'hf_x' };
    expect(hubHeadersFor('http://127.0.0.1:9000/a/b/resolve/main/f.gguf', settings)).toEqual({
      Authorization: 'Bearer hf_x',
    });
    expect(hubHeadersFor('https://cdn.example.com/f.gguf', settings)).toEqual({});
    expect(hubHeadersFor('https://huggingface.co/a/b/resolve/main/f', { token: 'hf_x' })).toEqual({
      Authorization: 'Bearer hf_x',
    });
    expect(hubHeadersFor('http://127.0.0.1:9000/f', { endpoint: settings.endpoint })).toEqual({});
  });

  it('reads HF_ENDPOINT, ignoring a blank one', () => {
    expect(hubEndpointFromEnv({ HF_ENDPOINT: ' http://mirror:8080 ' })).toBe('http://mirror:8080');
    expect(hubEndpointFromEnv({ HF_ENDPOINT: '' })).toBeUndefined();
    expect(hubEndpointFromEnv({})).toBeUndefined();
  });
});
