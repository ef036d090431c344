import { describe, expect, it } from 'vitest';
import { LmtabError } from '../errors/index.js';
import { defineApp, isAppDefinition } from './define-app.js';
import type { AppOptions } from './define-app.js';

const model = 'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M';

function rejection(options: unknown): LmtabError {
  try {
    defineApp(options as AppOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(LmtabError);
    return error as LmtabError;
  }
  throw new Error('expected defineApp to throw');
}

describe('defineApp', () => {
  it('resolves the documented defaults', () => {
    expect(defineApp({ model })).toEqual({
      kind: 'lmtab-app',
      model,
      contextLength: 4096,
      parallel: 4,
      minReplicas: 0,
      maxReplicas: 1,
      targetConcurrency: 4,
      maxConcurrency: 8,
      keepAliveSeconds: 300,
      requestTimeoutSeconds: 600,
      startupTimeoutSeconds: 1200,
      gpu: false,
      memory: undefined,
      cpu: undefined,
      storage: '20Gi',
    });
  });

  it('keeps every option given, 0 and false included', () => {
    const app = defineApp({
      model: 'LiquidAI/LFM2-350M-GGUF',
      contextLength: 8192,
      parallel: 2,
      minReplicas: 0,
      maxReplicas: 4,
      targetConcurrency: 3,
      maxConcurrency: 0,
      keepAlive: '1h',
      requestTimeout: 900,
      startupTimeout: '30m',
      gpu: true,
      memory: '8Gi',
      cpu: '500m',
      storage: '50Gi',
    });
    expect(app).toMatchObject({
      contextLength: 8192,
      parallel: 2,
      maxReplicas: 4,
      targetConcurrency: 3,
      maxConcurrency: 0,
      keepAliveSeconds: 3600,
      requestTimeoutSeconds: 900,
      startupTimeoutSeconds: 1800,
      gpu: true,
      memory: '8Gi',
      cpu: '500m',
      storage: '50Gi',
    });
    expect(defineApp({ model, keepAlive: 0 }).keepAliveSeconds).toBe(0);
    expect(Object.isFrozen(app)).toBe(true);
    expect(isAppDefinition(app)).toBe(true);
    expect(isAppDefinition({ model })).toBe(false);
  });

  it('defaults minReplicas <= maxReplicas and targetConcurrency to parallel', () => {
    expect(defineApp({ model, minReplicas: 3 }).maxReplicas).toBe(3);
    expect(defineApp({ model, parallel: 6 }).targetConcurrency).toBe(6);
    expect(defineApp({ model, parallel: 6, maxConcurrency: 2 }).targetConcurrency).toBe(2);
  });

  it.each([
    [{ model: './model.gguf' }, 'model', /model: Expected a hub model reference/],
    [{}, 'model', /expected a hub model reference like "hf.co\/ORG\/REPO:Q4_K_M", got undefined/],
    [{ model, contextLength: 100 }, 'contextLength', /from 256 to 1048576, got 100/],
    [{ model, parallel: 1.5 }, 'parallel', /whole number from 1 to 64, got 1.5/],
    [{ model, parallel: '4' }, 'parallel', /got "4"/],
    [{ model, minReplicas: 3, maxReplicas: 2 }, 'maxReplicas', /at least minReplicas \(3\), got 2/],
    [{ model, maxReplicas: 0 }, 'maxReplicas', /from 1 to 1000, got 0/],
    [{ model, targetConcurrency: 9 }, 'targetConcurrency', /at most maxConcurrency \(8\), got 9/],
    [{ model, keepAlive: '5 minutes' }, 'keepAlive', /keepAlive: expected a duration like/],
    [{ model, keepAlive: '2h' }, 'keepAlive', /at most "1h".*got "2h"/],
    [{ model, requestTimeout: '0s' }, 'requestTimeout', /at least "1s", got "0s"/],
    [{ model, gpu: 'yes' }, 'gpu', /true or false, got "yes"/],
    [{ model, memory: '8 GB' }, 'memory', /Kubernetes quantity like "8Gi", got "8 GB"/],
    [{ model, gpus: true }, 'gpus', /no such option \(options: model, contextLength/],
  ])('rejects %j naming %s', (options, param, message) => {
    const error = rejection(options);
    expect(error.code).toBe('invalid_request');
    expect(error.param).toBe(param);
    expect(error.message).toMatch(/^defineApp: /);
    expect(error.message).toMatch(message);
  });

  it('rejects a non-object', () => {
    expect(rejection('hf.co/org/repo').message).toMatch(/expected an object/);
  });
});
