import { routeScope } from '../../api/wire.js';
import { LmtabError } from '../../errors/index.js';
import { verifyApiKey } from './key-store.js';
import type { KeyInfo, KeyRecord, KeyScope } from './key-store.js';

/** Who may call an app: `private` needs an lmtab key, `public` anyone. */
export type AppAuth = 'private' | 'public';

/** The app auth modes, for option parsing. */
export const APP_AUTH_MODES: readonly AppAuth[] = ['private', 'public'];

/** The outcome of {@link authorizeRequest}. */
export type AuthDecision =
  { ok: true; key: KeyInfo | undefined } | { ok: false; error: LmtabError };

/** The one accepted form, shown in every refusal. */
export const EXPECTED_AUTHORIZATION = 'Authorization: Key <API_KEY>';

/**
 * The scope a request needs, from its path after the app's prefix: the route table's (`admin` to
 * pull, create, copy, delete and upload blobs; `api` for inference and reads).
 */
export function requiredScope(path: string): KeyScope {
  return routeScope(path);
}

/**
 * Decides whether a request may reach an app. Public apps let everyone in for `api` requests (a
 * key, if sent, is ignored). Private apps, and `admin` requests to any app, need
 * `Authorization: Key <API_KEY>` with a key that exists and is not revoked; anything else is
 * refused with `unauthorized` (401), and the message never repeats what the client sent after the
 * scheme. A valid `api` key on an `admin` request is refused with 403 naming the scope.
 */
export function authorizeRequest(
  authorization: string | undefined,
  auth: AppAuth,
  records: readonly KeyRecord[],
  needed: KeyScope = 'api',
): AuthDecision {
  if (auth === 'public' && needed === 'api') return { ok: true, key: undefined };
  const what =
    auth === 'public'
      ? 'This request changes the app’s models, which needs an admin key'
      : 'This app is private';
  const refuse = (got: string): AuthDecision => ({
    ok: false,
    error: new LmtabError(
      'unauthorized',
      `${what}: expected the header "${EXPECTED_AUTHORIZATION}" with an lmtab key, got ${got}.`,
    ),
  });
  const value = authorization?.trim() ?? '';
  if (value === '') return refuse('no Authorization header');
  const space = value.search(/\s/);
  const scheme = space === -1 ? value : value.slice(0, space);
  const credential = space === -1 ? '' : value.slice(space).trim();
  if (/^bearer$/i.test(scheme)) {
    return refuse('"Authorization: Bearer ..." (lmtab keys go after Key, not Bearer)');
  }
  if (!/^key$/i.test(scheme)) {
    return refuse(
      space === -1
        ? 'a value with no scheme (put "Key " before the key)'
        : `the scheme ${JSON.stringify(scheme.slice(0, 20))}`,
    );
  }
  if (credential === '') return refuse('"Key" with no key after it');
  const check = verifyApiKey(credential, records);
  if (check.status === 'revoked') return refuse('a key that has been revoked');
  if (check.status === 'unknown') return refuse('a key that is not valid');
  if (needed === 'admin' && check.key.scope !== 'admin') {
    return {
      ok: false,
      error: new LmtabError(
        'insufficient_scope',
        `Key ${check.key.id} has scope "${check.key.scope}", which allows inference and reads: ` +
          'pulling, creating, copying, deleting models and uploading blobs need a key with scope ' +
          '"admin" (lmtab keys create --scope admin).',
      ),
    };
  }
  return { ok: true, key: check.key };
}
