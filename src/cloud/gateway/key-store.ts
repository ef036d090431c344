import { createHash, randomBytes as cryptoRandomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { LmtabError } from '../../errors/index.js';
import { lmtabHome } from '../../relay/index.js';
import { parseJsonFile } from '../parse-json-file.js';

/** What a key may do: `api` calls the models; `admin` also manages keys. */
export type KeyScope = 'api' | 'admin';

/** The scopes, in the order the CLI lists them. */
export const KEY_SCOPES: readonly KeyScope[] = ['api', 'admin'];

/** A key as shown to people: everything but its hash. */
export interface KeyInfo {
  /** Stable id used to revoke it, e.g. `key_3f9a0c1b2d4e`. */
  id: string;
  /** Free text; may be empty. */
  name: string;
  scope: KeyScope;
  /** ISO 8601 time of creation. */
  created: string;
  /** ISO 8601 time of revocation, or null while the key is valid. */
  revoked: string | null;
  /** The key's last four characters, to tell keys apart. */
  hint: string;
}

/** A key as stored: its info and a salted SHA-256 of the key, never the key itself. */
export interface KeyRecord extends KeyInfo {
  /** Random salt, hex. */
  salt: string;
  /** SHA-256 of salt and key, hex. */
  hash: string;
}

/** The key file's content (`keys.json`), also the payload of the gateway's Secret. */
export interface KeyFile {
  version: 1;
  keys: KeyRecord[];
}

/** The outcome of checking a presented key. */
export type KeyCheck =
  { status: 'valid'; key: KeyInfo } | { status: 'revoked'; key: KeyInfo } | { status: 'unknown' };

/** Options of {@link createKeyStore}. */
export interface KeyStoreOptions {
  /** The key file; see {@link defaultKeyFile}. */
  file: string;
  /** Current time; default `() => new Date()`. */
  now?: () => Date;
  /** Random bytes; default node:crypto's `randomBytes`. */
  randomBytes?: (size: number) => Buffer;
}

/** Options of {@link KeyStore.create}. */
export interface CreateKeyOptions {
  /** Default empty. */
  name?: string;
  /** Default `api`. */
  scope?: KeyScope;
}

/** API keys on disk, stored hashed. */
export interface KeyStore {
  /** The key file. */
  readonly file: string;
  /** Makes a key; the returned `key` is the only time it exists in clear. */
  create(options?: CreateKeyOptions): Promise<{ key: string; info: KeyInfo }>;
  /** Every key, revoked ones included, oldest first. */
  list(): Promise<KeyInfo[]>;
  /** Revokes a key by id (again: no change); throws `not_found` for an unknown id. */
  revoke(id: string): Promise<KeyInfo>;
  /** The stored records, for the gateway. */
  records(): Promise<KeyRecord[]>;
}

const keyPrefix = 'lmtab_';
// 32 random bytes in base64url: 43 characters.
const keyPattern = /^lmtab_[A-Za-z0-9_-]{43}$/;

/** `$LMTAB_HOME/keys.json`, else `~/.lmtab/keys.json`. */
export function defaultKeyFile(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  return join(lmtabHome(env, home), 'keys.json');
}

/** A new key: `lmtab_` and 32 random bytes in base64url (256 bits). */
export function generateApiKey(randomBytes: (size: number) => Buffer = cryptoRandomBytes): string {
  return keyPrefix + randomBytes(32).toString('base64url');
}

/**
 * SHA-256 of salt and key, hex. A fast hash is enough: keys carry 256 random bits, so there is
 * nothing to guess, and every request pays for the check.
 */
export function hashApiKey(key: string, salt: string): string {
  return createHash('sha256').update(salt).update('\0').update(key).digest('hex');
}

function toInfo(record: KeyRecord): KeyInfo {
  const { id, name, scope, created, revoked, hint } = record;
  return { id, name, scope, created, revoked, hint };
}

/**
 * Checks a presented key against every record in constant time per record (`timingSafeEqual`),
 * without stopping at the first match, so the time taken says nothing about which key matched.
 */
export function verifyApiKey(presented: string, records: readonly KeyRecord[]): KeyCheck {
  // The format is public; a string that cannot be a key is unknown without hashing.
  if (!keyPattern.test(presented)) return { status: 'unknown' };
  let found: KeyRecord | undefined;
  for (const record of records) {
    const expected = Buffer.from(record.hash, 'hex');
    const actual = Buffer.from(hashApiKey(presented, record.salt), 'hex');
    if (expected.length === actual.length && timingSafeEqual(expected, actual)) found ??= record;
  }
  if (found === undefined) return { status: 'unknown' };
  return { status: found.revoked === null ? 'valid' : 'revoked', key: toInfo(found) };
}

/** Parses a key file's text; throws `invalid_request` naming the file when it is not one. */
export function parseKeyFile(text: string, file = 'keys.json'): KeyFile {
  const value = parseJsonFile(text, `the key file ${file}`);
  const keys = (value as { keys?: unknown } | null)?.keys;
  const valid =
    (value as { version?: unknown }).version === 1 &&
    Array.isArray(keys) &&
    keys.every(
      (key: Partial<KeyRecord> | null) =>
        typeof key?.id === 'string' &&
        typeof key.hash === 'string' &&
        typeof key.salt === 'string' &&
        KEY_SCOPES.includes(key.scope as KeyScope),
    );
  if (!valid) {
    throw new LmtabError(
      'invalid_request',
      `Expected {"version": 1, "keys": [...]} with id, scope, salt and hash in each key, in the key file ${file}.`,
    );
  }
  return value as KeyFile;
}

/** Opens the key file (created on the first key, mode 0600 in a 0700 folder). */
export function createKeyStore(options: KeyStoreOptions): KeyStore {
  const { file } = options;
  const now = options.now ?? (() => new Date());
  const randomBytes = options.randomBytes ?? cryptoRandomBytes;

  const read = async (): Promise<KeyFile> => {
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    return text === undefined ? { version: 1, keys: [] } : parseKeyFile(text, file);
  };
  const write = async (content: KeyFile): Promise<void> => {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, file);
  };

  return {
    file,
    async create(createOptions = {}) {
      const scope = createOptions.scope ?? 'api';
      if (!KEY_SCOPES.includes(scope)) {
        throw new LmtabError(
          'invalid_request',
          `Expected a key scope (${KEY_SCOPES.join(' or ')}), got ${JSON.stringify(scope)}.`,
          { param: 'scope' },
        );
      }
      const content = await read();
      const key = generateApiKey(randomBytes);
      const salt = randomBytes(16).toString('hex');
      const record: KeyRecord = {
        id: `key_${randomBytes(6).toString('hex')}`,
        name: createOptions.name ?? '',
        scope,
        created: now().toISOString(),
        revoked: null,
        hint: key.slice(-4),
        salt,
        hash: hashApiKey(key, salt),
      };
      content.keys.push(record);
      await write(content);
      return { key, info: toInfo(record) };
    },
    async list() {
      return (await read()).keys.map(toInfo);
    },
    async revoke(id) {
      const content = await read();
      const record = content.keys.find((key) => key.id === id);
      if (record === undefined) {
        const ids = content.keys.map((key) => key.id);
        throw new LmtabError(
          'not_found',
          `Expected the id of a key (${ids.length === 0 ? 'there are none' : ids.join(', ')}), got ${JSON.stringify(id)}.`,
        );
      }
      if (record.revoked === null) {
        record.revoked = now().toISOString();
        await write(content);
      }
      return toInfo(record);
    },
    async records() {
      return (await read()).keys;
    },
  };
}

/**
 * Reads a key file for the gateway, again only when its modification time changed (a mounted
 * Secret is replaced in place when keys are revoked). A missing file means no keys.
 */
export function createKeyFileReader(file: string): () => Promise<readonly KeyRecord[]> {
  let cached: { mtimeMs: number; size: number; keys: readonly KeyRecord[] } | undefined;
  return async () => {
    const info = await stat(file).catch(() => undefined);
    if (info === undefined) return [];
    if (cached?.mtimeMs !== info.mtimeMs || cached.size !== info.size) {
      const keys = parseKeyFile(await readFile(file, 'utf8'), file).keys;
      cached = { mtimeMs: info.mtimeMs, size: info.size, keys };
    }
    return cached.keys;
  };
}
