import { Command } from 'commander';
import type { CloudCliContext } from './cloud-cli-context.js';
import { cloudDeployCommand } from './cloud-deploy-command.js';
import { cloudGatewayCommand } from './cloud-gateway-command.js';

/** `lmtab cloud`: run an app file locally, deploy it to Knative, and the gateway in front. */
export function cloudCommand(context: CloudCliContext): Command {
  return new Command('cloud')
    .description(
      'Apps from app files (FILE.ts::serve): deploy to Knative behind a gateway with API keys',
    )
    .addCommand(cloudDeployCommand(context))
    .addCommand(cloudGatewayCommand(context));
}
