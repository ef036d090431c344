import { Command, InvalidArgumentError } from 'commander';
import { createKeyStore, defaultKeyFile, KEY_SCOPES } from '../../cloud/index.js';
import type { KeyInfo, KeyScope } from '../../cloud/index.js';
import { reportErrors } from './cloud-cli-context.js';
import type { CloudCliContext } from './cloud-cli-context.js';

function parseScope(value: string): KeyScope {
  if (!KEY_SCOPES.includes(value as KeyScope)) {
    throw new InvalidArgumentError(`expected ${KEY_SCOPES.join(' or ')}, got "${value}"`);
  }
  return value as KeyScope;
}

function table(rows: string[][]): string {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function status(key: KeyInfo): string {
  return key.revoked === null ? 'active' : `revoked ${key.revoked}`;
}

/** `lmtab keys create|list|revoke`: API keys of private cloud apps, stored hashed. */
export function keysCommand(context: CloudCliContext): Command {
  const store = () => createKeyStore({ file: defaultKeyFile(context.env) });
  const keys = new Command('keys').description(
    'API keys for private cloud apps (stored hashed in $LMTAB_HOME/keys.json, default ~/.lmtab)',
  );
  keys
    .command('create')
    .description('Make a key; it is shown once, only its hash is kept')
    .option('--scope <scope>', `what it may do: ${KEY_SCOPES.join(' or ')}`, parseScope, 'api')
    .option('--name <name>', 'a name to tell keys apart', '')
    .option('--json', 'print {"id", "key", ...} as JSON')
    .action(
      reportErrors(context, async (options: { scope: KeyScope; name: string; json?: boolean }) => {
        const { key, info } = await store().create({ name: options.name, scope: options.scope });
        if (options.json === true) {
          context.stdout(`${JSON.stringify({ ...info, key })}\n`);
          return;
        }
        const named = info.name === '' ? '' : ` "${info.name}"`;
        context.stdout(
          `Created ${info.scope} key ${info.id}${named}. Copy it now: it is not shown again.\n\n` +
            `  ${key}\n\n` +
            `Send it as the header: Authorization: Key ${key}\n`,
        );
      }),
    );
  keys
    .command('list')
    .description('List keys (never the keys themselves)')
    .option('--json', 'print JSON')
    .action(
      reportErrors(context, async (options: { json?: boolean }) => {
        const list = await store().list();
        if (options.json === true) {
          context.stdout(`${JSON.stringify(list, null, 2)}\n`);
          return;
        }
        if (list.length === 0) {
          context.stdout('No keys yet: make one with `lmtab keys create`.\n');
          return;
        }
        const rows = [
          ['ID', 'NAME', 'SCOPE', 'KEY', 'CREATED', 'STATUS'],
          ...list.map((key) => [
            key.id,
            key.name === '' ? '-' : key.name,
            key.scope,
            `lmtab_…${key.hint}`,
            key.created,
            status(key),
          ]),
        ];
        context.stdout(`${table(rows)}\n`);
      }),
    );
  keys
    .command('revoke')
    .description('Revoke a key by id')
    .argument('<id>', 'the key id, as `lmtab keys list` shows it')
    .action(
      reportErrors(context, async (id: string) => {
        const before = (await store().list()).find((key) => key.id === id);
        const info = await store().revoke(id);
        context.stdout(
          before?.revoked === null
            ? `Revoked ${info.id}. A gateway started here stops accepting it at once; for a cluster, run \`lmtab cloud deploy ... --apply\` again to ship the change.\n`
            : `${info.id} was already revoked (${info.revoked}).\n`,
        );
      }),
    );
  return keys;
}
