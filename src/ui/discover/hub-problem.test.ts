import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { hubProblem } from './hub-problem.js';

describe('hubProblem', () => {
  it('tells each kind by code, status and the network', () => {
    const failed = new LmtabError('download_failed', 'Could not reach the hub.');
    expect(hubProblem(failed, false).kind).toBe('offline');
    expect(hubProblem(failed).kind).toBe('unreachable');
    expect(hubProblem(new LmtabError('unauthorized', 'gated')).kind).toBe('gated');
    expect(hubProblem(new LmtabError('model_not_found', 'gone')).kind).toBe('not-found');
    const limited = hubProblem(new LmtabError('hub_rate_limited', 'slow down', { retryAfter: 30 }));
    expect(limited).toMatchObject({ kind: 'rate-limited', detail: 'slow down' });
    expect(limited.advice).toMatch(/^Wait 30 s, then retry/);
  });

  it('keeps the message of anything thrown', () => {
    expect(hubProblem(new TypeError('Failed to fetch')).detail).toBe('Failed to fetch');
    expect(hubProblem('odd').detail).toBe('odd');
  });
});
