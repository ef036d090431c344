import { z } from 'zod';
import { LmtabError } from '../../../errors/index.js';
import { parseWire } from '../../body/parse-wire.js';

/** Body of `/api/show` and `/api/delete`: the model as `model`, or as the older `name`. */
export const modelNameRequestSchema = z.object({
  model: z.string().nullish(),
  name: z.string().nullish(),
});

/** Validates a `/api/show` or `/api/delete` body and returns the model name it gives. */
export function parseModelName(body: unknown): string {
  const wire = parseWire(modelNameRequestSchema, body);
  const name = wire.model ?? wire.name;
  if (name === undefined || name === null) {
    throw new LmtabError(
      'invalid_request',
      'Missing required field `model`: expected a string naming a model (or `name`).',
      { param: 'model' },
    );
  }
  return name;
}
