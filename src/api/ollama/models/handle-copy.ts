import { z } from 'zod';
import { findModel } from '../../pipeline/find-model.js';
import { parseWire } from '../../body/parse-wire.js';
import { readJsonBody } from '../../body/read-json-body.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { newModelName } from './new-model-name.js';

const copyRequestSchema = z.object({ source: z.string(), destination: z.string() });

/** `POST /api/copy`: stores a model under a second name; both share the files. */
export async function handleCopy(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(copyRequestSchema, body);
  const destination = newModelName(wire.destination, 'destination');
  const source = await findModel(context.store, wire.source, { param: 'source' });
  if (source.id !== destination) await context.store.copy(source.id, destination);
  return new Response(null, { status: 200 });
}
