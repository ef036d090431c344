import { Command } from 'commander';
import type { CloudCliContext } from './cloud-cli-context.js';
import { cloudDeployCommand } from './cloud-deploy-command.js';
import { cloudGatewayCommand } from './cloud-gateway-command.js';
import { cloudReplicaCommand } from './cloud-replica-command.js';
import { cloudRunCommand } from './cloud-run-command.js';

/** `lmtab cloud`: run an app file here, deploy it to Knative, and the gateway and replica commands. */
export function cloudCommand(context: CloudCliContext): Command {
  return new Command('cloud')
    .description(
      'Apps from app files (FILE.ts::serve): run here, or deploy to Knative behind a gateway with API keys',
    )
    .addCommand(cloudRunCommand(context))
    .addCommand(cloudDeployCommand(context))
    .addCommand(cloudGatewayCommand(context))
    .addCommand(cloudReplicaCommand(context));
}
