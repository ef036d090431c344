import { join } from 'node:path';
import { LmtabError } from '../../errors/index.js';
import type { CliContext } from '../cli-context.js';
import { createProgressDisplay } from '../format/progress-display.js';
import type { RelayClient } from '../relay-client.js';
import { resolveRunModel } from '../commands/run-command.js';
import { agentIntegration } from './agent-integrations.js';
import type { AgentEnvironment, LaunchSettings } from './agent-integrations.js';
import { createConfigBackups } from './config-backup.js';

/** Tokens of context a launch loads the model with unless told otherwise. */
export const defaultLaunchContext = 32_768;

/** Options of {@link launchCommand}. */
export interface LaunchOptions {
  /** Tokens of context to load the model with; default {@link defaultLaunchContext}, at most the model's training context. */
  context?: number;
  /** Write the configuration and load the model, without starting the agent; default false. */
  config?: boolean;
  /** Put back the configuration files lmtab wrote over, instead of launching; default false. */
  restore?: boolean;
}

/** What `lmtab launch` needs beyond every command's context. */
export interface LaunchContext extends CliContext {
  /** The environment lmtab runs in; the agent inherits it. */
  env: NodeJS.ProcessEnv;
  /** lmtab's home folder; the backups live in its `launch/` folder. */
  lmtabHome: string;
  /**
   * Starts the agent on this terminal and resolves to its exit code; rejects with code ENOENT
   * when `command` is not on PATH.
   */
  start(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number>;
}

/**
 * `lmtab launch AGENT [MODEL] [-- ARGS...]`, in the manner of `ollama launch`: makes sure the
 * relay runs and MODEL (by default the loaded or only stored one) is loaded with a context fit for
 * an agent, points the agent at the relay (its environment, or its own configuration file after
 * backing it up), and starts it with ARGS. With `restore`, puts the backed-up files back instead.
 * Resolves to the exit code to leave with (the agent's).
 */
export async function launchCommand(
  context: LaunchContext,
  agentName: string,
  modelArg: string | undefined,
  agentArgs: readonly string[],
  options: LaunchOptions = {},
): Promise<number> {
  const agent = agentIntegration(agentName);
  const backups = createConfigBackups(join(context.lmtabHome, 'launch'));
  if (options.restore === true) {
    const restored = await backups.restore(agentName);
    if (restored.length === 0) {
      context.stderr.write(
        agent.writesFiles
          ? `Nothing to restore for ${agent.title}: lmtab launch has not written its configuration since the last restore.\n`
          : `Nothing to restore for ${agent.title}: lmtab launch passes it its settings in its environment and writes no file.\n`,
      );
    }
    for (const file of restored) {
      context.stderr.write(
        file.action === 'restored'
          ? `restored ${file.path}\n`
          : `removed ${file.path} (there was none before lmtab's)\n`,
      );
    }
    return 0;
  }

  const client = await context.connect();
  const model = await launchModel(context, client, modelArg);
  const contextLength = await fitContext(client, model, options.context);
  // Loaded now, with the context the agent is told about (its requests name none).
  for await (const chunk of client.chat({
    model,
    messages: [],
    options: { num_ctx: contextLength },
  })) {
    void chunk;
  }
  const apiKey = context.env.LMTAB_API_KEY;
  const settings: LaunchSettings = {
    baseUrl: client.baseUrl,
    apiKey: apiKey === undefined || apiKey === '' ? undefined : apiKey,
    model,
    contextLength,
  };
  const where: AgentEnvironment = { home: context.home, env: context.env };
  context.stderr.write(
    `${agent.title} -> lmtab at ${client.baseUrl.href.replace(/\/$/, '')}, model ${model} (${contextLength.toLocaleString('en')} tokens of context)\n`,
  );
  const files = agent.files(settings, where);
  for (const file of files) {
    await backups.write(agentName, file.path, file.update);
    context.stderr.write(
      `wrote ${file.path} (lmtab launch --restore ${agentName} puts back what was there)\n`,
    );
  }
  const args = [...agent.args(settings), ...agentArgs];
  const env = agent.env(settings, where);
  if (options.config === true) {
    const assignments = Object.entries(env).map(([name, value]) => `${name}=${shellWord(value)}`);
    context.stdout.write(
      `${[...assignments, ...[agent.command, ...args].map(shellWord)].join(' ')}\n`,
    );
    return 0;
  }
  try {
    return await context.start(agent.command, args, { ...context.env, ...env });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new LmtabError(
      'invalid_request',
      `${agent.title} is not installed: expected \`${agent.command}\` on PATH. Install it with: ${agent.install}`,
      { cause: error },
    );
  }
}

/** The model to launch with: the one named, else the loaded one, else the only stored one. */
async function launchModel(
  context: CliContext,
  client: RelayClient,
  modelArg: string | undefined,
): Promise<string> {
  if (modelArg !== undefined) {
    const display = createProgressDisplay({
      write: (t) => context.stderr.write(t),
      isTTY: context.stderr.isTTY === true,
      columns: context.stderr.columns ?? 80,
    });
    const model = await resolveRunModel(context, client, modelArg, display);
    display.finish();
    return model;
  }
  const [running] = await client.ps();
  if (running !== undefined) return running.name;
  const stored = await client.tags();
  if (stored.length === 1) return stored[0]!.name;
  throw new LmtabError(
    'invalid_request',
    stored.length === 0
      ? 'No model to launch with: expected MODEL (a name, hf.co/ORG/REPO:QUANT or ./file.gguf), and none is stored yet.'
      : `Which model? Expected MODEL, one of: ${stored.map((m) => m.name).join(', ')}.`,
  );
}

/** The context to load with: the one asked for (or the default), within the training context. */
async function fitContext(
  client: RelayClient,
  model: string,
  asked: number | undefined,
): Promise<number> {
  const info = await client.show(model);
  const trained = Object.entries(info.model_info ?? {}).find(([key]) =>
    key.endsWith('.context_length'),
  )?.[1];
  const limit = typeof trained === 'number' && trained > 0 ? trained : Infinity;
  if (asked !== undefined && asked > limit) {
    throw new LmtabError(
      'invalid_request',
      `Invalid --context: expected at most ${limit.toLocaleString('en')} tokens (${model}'s training context), received ${asked.toLocaleString('en')}.`,
    );
  }
  return Math.min(asked ?? defaultLaunchContext, limit);
}

/** `text` as one POSIX shell word. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
