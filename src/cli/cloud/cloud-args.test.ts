import { describe, expect, it } from 'vitest';
import { defineApp, gatewayArgs, replicaArgs } from '../../cloud/index.js';
import { testContext } from './cloud-cli-testing.js';
import { cloudGatewayCommand } from './cloud-gateway-command.js';
import { cloudReplicaCommand } from './cloud-replica-command.js';

const context = testContext({ env: {}, cwd: '/tmp' });

describe('the container arguments the manifests write', () => {
  it('are what lmtab cloud replica accepts', async () => {
    const definition = defineApp({
      model: 'hf.co/org/repo:Q8_0',
      contextLength: 8192,
      parallel: 2,
      keepAlive: '90s',
    });
    const args = replicaArgs(definition);
    expect(args.slice(0, 2)).toEqual(['cloud', 'replica']);
    let seen: unknown;
    const command = cloudReplicaCommand(context).action((options: unknown) => {
      seen = options;
    });
    await command.parseAsync(args.slice(2), { from: 'user' });
    expect(seen).toEqual({
      model: 'hf.co/org/repo:Q8_0',
      contextLength: '8192',
      parallel: '2',
      keepAlive: '1m30s',
      host: '0.0.0.0',
      port: 8080,
      relayPort: 0,
    });
  });

  it('are what lmtab cloud gateway accepts', async () => {
    const args = gatewayArgs();
    expect(args.slice(0, 2)).toEqual(['cloud', 'gateway']);
    let seen: unknown;
    const command = cloudGatewayCommand(context).action((options: unknown) => {
      seen = options;
    });
    await command.parseAsync(args.slice(2), { from: 'user' });
    expect(seen).toEqual({
      config: '/etc/lmtab/gateway/gateway.json',
      keys: '/etc/lmtab/keys/keys.json',
      host: '0.0.0.0',
      port: 8080,
    });
  });

  it('a replica without the gateway token refuses to start, saying where it comes from', async () => {
    const bare = testContext({ env: {}, cwd: '/tmp' });
    const args = replicaArgs(defineApp({ model: 'hf.co/org/repo:Q8_0' }));
    await cloudReplicaCommand(bare).parseAsync(args.slice(2), { from: 'user' });
    expect(bare.err.join('')).toMatch(
      /^Error \(invalid_request\): A replica answers only its gateway: expected LMTAB_GATEWAY_TOKEN .*lmtab-gateway-token Secret/,
    );
    expect(bare.out).toEqual([]);
    process.exitCode = undefined;
  });
});
