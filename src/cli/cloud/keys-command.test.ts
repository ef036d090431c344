import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testContext } from './cloud-cli-testing.js';
import { keysCommand } from './keys-command.js';

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'lmtab-keys-cli-'));
});

afterEach(async () => {
  process.exitCode = undefined;
  await rm(home, { recursive: true, force: true });
});

async function lmtabKeys(...args: string[]) {
  const context = testContext({ env: { LMTAB_HOME: home }, cwd: home });
  await keysCommand(context).parseAsync(args, { from: 'user' });
  return { out: context.out.join(''), err: context.err.join('') };
}

describe('lmtab keys', () => {
  it('creates a key shown once, lists it without the key, revokes it', async () => {
    const created = await lmtabKeys('create', '--name', 'laptop');
    const key = /^ {2}(lmtab_\S+)$/m.exec(created.out)?.[1] ?? '';
    expect(key).toMatch(/^lmtab_[A-Za-z0-9_-]{43}$/);
    expect(created.out).toMatch(
      /^Created api key key_[0-9a-f]{12} "laptop"\. Copy it now: it is not shown again\./,
    );
    expect(created.out).toContain(`Send it as the header: Authorization: Key ${key}`);
    expect(await readFile(join(home, 'keys.json'), 'utf8')).not.toContain(key);

    const json = JSON.parse((await lmtabKeys('create', '--scope', 'admin', '--json')).out) as {
      id: string;
      key: string;
      scope: string;
    };
    expect(json.scope).toBe('admin');

    const listed = await lmtabKeys('list');
    expect(listed.out.split('\n')[0]).toMatch(/^ID\s+NAME\s+SCOPE\s+KEY\s+CREATED\s+STATUS$/);
    expect(listed.out).toMatch(new RegExp(`laptop\\s+api\\s+lmtab_…${key.slice(-4)}`));
    expect(listed.out).not.toContain(key);
    expect(listed.out).not.toContain(json.key);

    const id = /key_[0-9a-f]{12}/.exec(created.out)?.[0] ?? '';
    expect((await lmtabKeys('revoke', id)).out).toMatch(
      new RegExp(`^Revoked ${id}\\. A gateway started here stops accepting it at once`),
    );
    expect((await lmtabKeys('revoke', id)).out).toMatch(/was already revoked/);
    expect((await lmtabKeys('list')).out).toMatch(new RegExp(`${id}.*revoked \\d{4}-`));
  });

  it('says when there are no keys and when an id is unknown', async () => {
    expect((await lmtabKeys('list')).out).toBe('No keys yet: make one with `lmtab keys create`.\n');
    const revoked = await lmtabKeys('revoke', 'key_nope');
    expect(revoked.err).toBe(
      'Error (not_found): Expected the id of a key (there are none), got "key_nope".\n',
    );
    expect(process.exitCode).toBe(21);
  });
});
