import { describe, expect, it } from 'vitest';
import { applyManifests } from './apply-manifests.js';
import type { CommandResult, RunCommand } from './apply-manifests.js';

function fakeKubectl(answers: Record<string, Partial<CommandResult>>): {
  run: RunCommand;
  calls: string[];
} {
  const calls: string[] = [];
  const run: RunCommand = async (program, args) => {
    const line = [program, ...args].join(' ');
    calls.push(line);
    const key = Object.keys(answers).find((prefix) => line.startsWith(prefix));
    return { code: 0, stdout: '', stderr: '', ...(key === undefined ? {} : answers[key]) };
  };
  return { run, calls };
}

describe('applyManifests', () => {
  it('says plainly when kubectl is missing', async () => {
    const { run, calls } = fakeKubectl({ 'kubectl version': { code: 'ENOENT' } });
    expect(await applyManifests({ outDir: '/tmp/deploy', run })).toEqual({
      applied: false,
      message:
        'Not applied: kubectl is not on PATH. Install it, or apply the folder yourself later: kubectl apply -f /tmp/deploy/k8s',
    });
    expect(calls).toEqual(['kubectl version --client']);
  });

  it('says plainly when no cluster answers', async () => {
    const { run } = fakeKubectl({
      'kubectl cluster-info': {
        code: 1,
        stderr:
          '\nThe connection to the server localhost:8080 was refused - did you specify the right host or port?\n',
      },
    });
    const result = await applyManifests({ outDir: '/tmp/deploy', run });
    expect(result.applied).toBe(false);
    expect(result.message).toBe(
      'Not applied: kubectl found no reachable cluster (The connection to the server localhost:8080 was refused - did you specify the right host or port?). Point kubectl at a cluster and run: kubectl apply -f /tmp/deploy/k8s',
    );
  });

  it('says when the cluster has no Knative Serving', async () => {
    const { run } = fakeKubectl({ 'kubectl get crd': { code: 1, stderr: 'NotFound' } });
    expect((await applyManifests({ outDir: '/d', run })).message).toMatch(
      /^Not applied: the cluster has no Knative Serving/,
    );
  });

  it('applies the k8s folder when all is there, and reports failures', async () => {
    const ok = fakeKubectl({
      'kubectl apply': { stdout: 'service.serving.knative.dev/acme-chat created\n' },
    });
    expect(await applyManifests({ outDir: '/d', run: ok.run })).toEqual({
      applied: true,
      message: 'Applied to the cluster.',
      output: 'service.serving.knative.dev/acme-chat created\n',
    });
    expect(ok.calls.at(-1)).toBe('kubectl apply -f /d/k8s');
    const bad = fakeKubectl({
      'kubectl apply': { code: 1, stderr: 'error: admission webhook denied\n' },
    });
    expect((await applyManifests({ outDir: '/d', run: bad.run })).message).toBe(
      'kubectl apply failed: error: admission webhook denied',
    );
  });

  it('runs the real kubectl when there is one, and says so when there is none', async () => {
    const result = await applyManifests({ outDir: '/d', kubectl: 'kubectl-that-does-not-exist' });
    expect(result.message).toMatch(/^Not applied: kubectl is not on PATH/);
  });
});
