import { LmtabError } from '../../../errors/index.js';
import { checkModelName } from '../../pipeline/check-model-name.js';
import { quote } from '../../body/describe-value.js';

/**
 * Checks the name of a model about to be created or copied and returns the name to store:
 * Ollama's `:latest` tag is dropped (`mario:latest` is stored as `mario`, which `findModel` finds
 * under both). Names must be non-empty, without spaces or control characters, follow Ollama's
 * rules ({@link checkModelName}), and may not look like an uploaded blob (`sha256-...`).
 */
export function newModelName(name: string, param: string): string {
  const trimmed = name.trim().replace(/:latest$/i, '');
  const fail = (why: string): never => {
    throw new LmtabError(
      'invalid_request',
      `Invalid \`${param}\`: expected a model name such as "mario" or "hf.co/ORG/REPO:Q4_K_M", received ${quote(name)} (${why}).`,
      { param },
    );
  };
  if (trimmed === '') fail('it is empty');
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(trimmed)) fail('it contains spaces or control characters');
  if (/^sha256[:-]/i.test(trimmed)) fail('names starting with sha256 are kept for uploaded files');
  return checkModelName(trimmed, param);
}
