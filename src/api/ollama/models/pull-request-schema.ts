import { z } from 'zod';
import { LmtabError } from '../../../errors/index.js';
import { parseWire } from '../../body/parse-wire.js';

/** Body of `POST /api/pull`: the model as `model` (or the older `name`), `stream`, `insecure`. */
export const pullRequestSchema = z.object({
  model: z.string().nullish(),
  name: z.string().nullish(),
  /** Accepted and ignored: the hub is always reached over the configured endpoint. */
  insecure: z.boolean().nullish(),
  stream: z.boolean().nullish(),
});

/** A validated pull request. */
export interface PullRequest {
  model: string;
  stream: boolean;
}

/** Validates a `/api/pull` body. */
export function parsePullRequest(body: unknown): PullRequest {
  const wire = parseWire(pullRequestSchema, body);
  const model = wire.model ?? wire.name;
  if (model === undefined || model === null || model.trim() === '') {
    throw new LmtabError(
      'invalid_request',
      'Missing required field `model`: expected a hub model like hf.co/ORG/REPO:Q4_K_M or ORG/REPO.',
      { param: 'model' },
    );
  }
  return { model: model.trim(), stream: wire.stream ?? true };
}
