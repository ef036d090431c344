import { LmtabError } from '../errors/index.js';
import type { GgufChoice } from './gguf-choices.js';
import {
  DEFAULT_QUANTIZATION,
  nearestQuantization,
  normalizeQuantization,
  parseQuantization,
} from './quantization.js';
import { isRepoId } from './repo-id.js';

/** A hub model as named by a user or an API request. */
export interface ModelReference {
  /** Repository id `ORG/REPO`, as written. */
  repo: string;
  /**
   * Wanted level in upper case (`Q4_K_M`), or a file name tag as written (`Model-IQ3_M.gguf`
   * gives `IQ3_M` when the name carries a level); undefined for the default.
   */
  quantization?: string;
  /** Branch, tag or commit (`ORG/REPO@REV`); default `main`. */
  revision: string;
}

/** Options of {@link pickChoice}. */
export interface PickChoiceOptions {
  /**
   * When an explicitly wanted level is missing, fall back to the nearest one instead of failing;
   * default false (the default level always falls back).
   */
  nearest?: boolean;
  /** Repository id named in error messages. */
  repo?: string;
}

const example = 'hf.co/ORG/REPO:Q4_K_M';
const hostPrefix = /^(?:https?:\/\/)?(?:www\.)?(?:hf\.co|huggingface\.co)\//i;
const tagPattern = /^[A-Za-z0-9_.-]+$/;
const revisionPattern = /^[A-Za-z0-9_.][A-Za-z0-9_./-]*$/;

/**
 * Parses `hf.co/ORG/REPO:QUANT`, `huggingface.co/ORG/REPO`, `ORG/REPO` or `ORG/REPO:QUANT`
 * (also with `https://` and `@REVISION`); throws `invalid_request` for anything else.
 */
export function parseModelReference(text: string): ModelReference {
  const trimmed = text.trim();
  const invalid = (why: string) =>
    new LmtabError(
      'invalid_request',
      `Expected a hub model reference like ${example} or ORG/REPO, got ${JSON.stringify(text)}: ${why}.`,
      { param: 'model' },
    );
  if (trimmed === '') throw invalid('it is empty');
  const hasHost = hostPrefix.test(trimmed);
  if (!hasHost && /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed))
    throw invalid('only hf.co and huggingface.co URLs name hub models');
  // A repository URL copied from the browser may end in a slash.
  const rest = trimmed.replace(hostPrefix, '').replace(/\/$/, '');

  const colon = rest.indexOf(':');
  const name = colon === -1 ? rest : rest.slice(0, colon);
  const tag = colon === -1 ? undefined : rest.slice(colon + 1);
  const at = name.indexOf('@');
  const repo = at === -1 ? name : name.slice(0, at);
  const revision = at === -1 ? 'main' : name.slice(at + 1);

  if (!isRepoId(repo)) throw invalid(`${JSON.stringify(repo)} is not a repository id ORG/REPO`);
  if (!revisionPattern.test(revision) || revision.includes('..')) {
    throw invalid(`${JSON.stringify(revision)} is not a branch, tag or commit`);
  }
  if (tag === undefined || tag.toLowerCase() === 'latest') return { repo, revision };
  if (!tagPattern.test(tag))
    throw invalid(`${JSON.stringify(tag)} is not a quantization level or file name`);
  // Ollama accepts a whole file name as the tag: keep its level when the name carries one.
  const quantization = /\.gguf$/i.test(tag)
    ? (parseQuantization(tag) ?? tag)
    : normalizeQuantization(tag);
  return { repo, quantization, revision };
}

/** The name a hub model is stored under, Ollama style: `hf.co/ORG/REPO:QUANT`. */
export function canonicalModelName(repo: string, quantization: string): string {
  return `hf.co/${repo}:${quantization}`;
}

/**
 * Picks the choice a reference asks for. No level: Q4_K_M, else the nearest available level
 * (bits per weight; at equal distance the larger). A named level (or file name) must exist,
 * unless `nearest` is set. Throws `model_not_found` when nothing fits.
 */
export function pickChoice(
  choices: readonly GgufChoice[],
  wanted?: string,
  options: PickChoiceOptions = {},
): GgufChoice {
  const repo = options.repo ?? 'the repository';
  const available = choices.map((choice) => choice.quantization);
  if (choices.length === 0) {
    throw new LmtabError(
      'model_not_found',
      `Expected at least one .gguf model file in ${repo}, got none.`,
    );
  }
  const target = wanted ?? DEFAULT_QUANTIZATION;
  const exact = findChoice(choices, target);
  if (exact !== undefined) return exact;
  if (wanted !== undefined && options.nearest !== true) {
    throw new LmtabError(
      'model_not_found',
      `${repo} has no ${wanted} file: expected one of ${available.join(', ')}, got ${wanted}.`,
    );
  }
  const level = nearestQuantization(normalizeQuantization(target), available);
  const nearest = level === undefined ? undefined : findChoice(choices, level);
  if (nearest !== undefined) return nearest;
  // Only unlabelled files (`model.gguf`): the default takes the first; a named level cannot.
  if (wanted === undefined && choices[0] !== undefined) return choices[0];
  throw new LmtabError(
    'model_not_found',
    `${repo} has no level near ${target}: expected one of ${available.join(', ')}, got ${target}.`,
  );
}

function findChoice(choices: readonly GgufChoice[], wanted: string): GgufChoice | undefined {
  const upper = wanted.toUpperCase();
  return (
    choices.find((choice) => choice.quantization.toUpperCase() === upper) ??
    choices.find((choice) =>
      choice.files.some((file) => {
        const path = file.path.toUpperCase();
        return path === upper || path.endsWith(`/${upper}`);
      }),
    )
  );
}
