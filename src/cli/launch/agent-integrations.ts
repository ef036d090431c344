import { join } from 'node:path';
import { LmtabError } from '../../errors/index.js';

/** What an agent is pointed at. */
export interface LaunchSettings {
  /** The relay, e.g. `http://127.0.0.1:1234/`. */
  baseUrl: URL;
  /** The key the relay requires (`LMTAB_API_KEY`); undefined where it is open (loopback). */
  apiKey: string | undefined;
  /** The stored model the agent talks to. */
  model: string;
  /** Tokens of context the model is loaded with; the agent is told the same. */
  contextLength: number;
}

/** Where the agent keeps its configuration. */
export interface AgentEnvironment {
  /** The person's home folder. */
  home: string;
  /** The environment `lmtab launch` runs in (`CODEX_HOME`, `XDG_CONFIG_HOME`). */
  env: NodeJS.ProcessEnv;
}

/** One configuration file lmtab writes for an agent. */
export interface AgentConfigFile {
  /** Absolute path. */
  path: string;
  /** The file's new text from its current one (undefined: there is none). */
  update(current: string | undefined): string;
}

/** How `lmtab launch` configures and starts one agent. */
export interface AgentIntegration {
  /** The agent's name in messages. */
  title: string;
  /** The executable looked up on PATH. */
  command: string;
  /** How to install it, for the message when it is missing. */
  install: string;
  /** Whether {@link files} writes any: false for an agent configured by its environment alone. */
  writesFiles: boolean;
  /** The files lmtab writes (after backing them up). */
  files(settings: LaunchSettings, where: AgentEnvironment): AgentConfigFile[];
  /** Arguments put before the person's own. */
  args(settings: LaunchSettings): string[];
  /** Variables added to the agent's environment. */
  env(settings: LaunchSettings, where: AgentEnvironment): Record<string, string>;
}

/** The agents `lmtab launch` knows, by the name it is given on the command line. */
export type AgentName = 'claude' | 'codex' | 'opencode';

/** The placeholder sent as the key where the relay needs none (agents refuse to start without). */
export const keyPlaceholder = 'lmtab';

/** The name of lmtab's entries in the agents' configurations (provider, profile). */
const entry = 'lmtab';

const v1 = (settings: LaunchSettings) => new URL('v1', settings.baseUrl).href;

/**
 * Claude Code reads everything from its environment: the relay as Anthropic's API, the model for
 * every role (main, fast, subagents), the context it compacts within. Nothing is written.
 */
const claude: AgentIntegration = {
  title: 'Claude Code',
  command: 'claude',
  install: 'npm install -g @anthropic-ai/claude-code',
  writesFiles: false,
  files: () => [],
  args: (settings) => ['--model', settings.model],
  env: ({ baseUrl, apiKey, model, contextLength }) => ({
    ANTHROPIC_BASE_URL: baseUrl.href.replace(/\/$/, ''),
    ANTHROPIC_AUTH_TOKEN: apiKey ?? keyPlaceholder,
    // A key of the person's own would be sent along and is not lmtab's to see.
    ANTHROPIC_API_KEY: '',
    ANTHROPIC_MODEL: model,
    ANTHROPIC_DEFAULT_OPUS_MODEL: model,
    ANTHROPIC_DEFAULT_SONNET_MODEL: model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
    ANTHROPIC_SMALL_FAST_MODEL: model,
    CLAUDE_CODE_SUBAGENT_MODEL: model,
    CLAUDE_CODE_AUTO_COMPACT_WINDOW: String(contextLength),
    // A local model: no calls home for updates, metrics or error reports.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  }),
};

/**
 * Codex reads a profile file of its own (`CODEX_HOME/lmtab.config.toml`, selected with
 * `--profile lmtab`), so the person's `config.toml` is left as it is.
 */
const codex: AgentIntegration = {
  title: 'Codex',
  command: 'codex',
  install: 'npm install -g @openai/codex',
  writesFiles: true,
  files: (settings, { home, env }) => [
    {
      path: join(nonEmpty(env.CODEX_HOME) ?? join(home, '.codex'), `${entry}.config.toml`),
      update: () => codexProfile(settings),
    },
  ],
  args: () => ['--profile', entry],
  env: () => ({}),
};

/** The text of Codex's lmtab profile. */
function codexProfile(settings: LaunchSettings): string {
  const lines = [
    '# Written by `lmtab launch codex`; `lmtab launch --restore codex` removes it.',
    `model = ${tomlString(settings.model)}`,
    `model_provider = ${tomlString(entry)}`,
    `model_context_window = ${settings.contextLength}`,
    '',
    `[model_providers.${entry}]`,
    `name = ${tomlString('lmtab')}`,
    `base_url = ${tomlString(v1(settings))}`,
    `wire_api = ${tomlString('responses')}`,
  ];
  // Only where the relay needs a key: Codex refuses to start when the variable named is unset.
  if (settings.apiKey !== undefined) lines.push(`env_key = ${tomlString('LMTAB_API_KEY')}`);
  return `${lines.join('\n')}\n`;
}

/**
 * opencode gets an `lmtab` provider in its global `opencode.json` (other settings kept), and the
 * model for this run through `OPENCODE_CONFIG_CONTENT`, so its default model stays the person's.
 */
const opencode: AgentIntegration = {
  title: 'opencode',
  command: 'opencode',
  install: 'npm install -g opencode-ai',
  writesFiles: true,
  files: (settings, { home, env }) => {
    const path = join(
      nonEmpty(env.XDG_CONFIG_HOME) ?? join(home, '.config'),
      'opencode',
      'opencode.json',
    );
    return [{ path, update: (current) => withOpencodeProvider(current, path, settings) }];
  },
  args: () => [],
  env: (settings, { env }) => ({
    OPENCODE_CONFIG_CONTENT: JSON.stringify({
      ...parseObject(env.OPENCODE_CONFIG_CONTENT, 'OPENCODE_CONFIG_CONTENT'),
      model: `${entry}/${settings.model}`,
    }),
  }),
};

/** opencode's configuration with lmtab's provider added (its other models kept). */
function withOpencodeProvider(
  current: string | undefined,
  path: string,
  settings: LaunchSettings,
): string {
  const config = parseObject(current, path);
  const providers = (config.provider ?? {}) as Record<string, Record<string, unknown>>;
  const previous = providers[entry] ?? {};
  const models = (previous.models ?? {}) as Record<string, unknown>;
  providers[entry] = {
    ...previous,
    npm: '@ai-sdk/openai-compatible',
    name: 'lmtab',
    options: {
      baseURL: v1(settings),
      // opencode reads `{env:NAME}` itself: the key stays out of the file.
      apiKey: settings.apiKey === undefined ? keyPlaceholder : '{env:LMTAB_API_KEY}',
    },
    models: {
      ...models,
      [settings.model]: {
        name: settings.model,
        tool_call: true,
        // opencode asks for min(output, 32000) tokens; a quarter of the context leaves room.
        limit: { context: settings.contextLength, output: Math.floor(settings.contextLength / 4) },
      },
    },
  };
  config.provider = providers;
  config.$schema ??= 'https://opencode.ai/config.json';
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** The agents by their command-line names. */
export const agentIntegrations: Readonly<Record<AgentName, AgentIntegration>> = {
  claude,
  codex,
  opencode,
};

/** The integration of `name`, or an error listing the agents lmtab can launch. */
export function agentIntegration(name: string): AgentIntegration {
  if (Object.hasOwn(agentIntegrations, name)) return agentIntegrations[name as AgentName];
  throw new LmtabError(
    'invalid_request',
    `Unknown agent ${JSON.stringify(name)}: expected one of ${Object.keys(agentIntegrations).join(', ')}.`,
  );
}

function parseObject(text: string | undefined, where: string): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LmtabError(
      'invalid_request',
      `Cannot add lmtab to ${where}: expected plain JSON, and it does not parse (${(error as Error).message}). Remove its comments or add lmtab's provider by hand (see docs/cli.md, Coding agents).`,
      { cause: error },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LmtabError(
      'invalid_request',
      `Cannot add lmtab to ${where}: expected a JSON object, received ${Array.isArray(value) ? 'an array' : typeof value}.`,
    );
  }
  return value as Record<string, unknown>;
}

/** A TOML basic string (JSON's escapes are TOML's). */
function tomlString(text: string): string {
  return JSON.stringify(text);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
