import { LmtabError } from '../../../errors/index.js';
import { findModel } from '../../pipeline/find-model.js';
import { readJsonBody } from '../../body/read-json-body.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { parseModelName } from './model-name-request-schema.js';

/** `DELETE /api/delete`: unloads and deletes a model (an unfinished download too). */
export async function handleDelete(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const record = await findModel(context.store, parseModelName(body), { includeIncomplete: true });
  if (context.engine.loaded().some((loaded) => loaded.model === record.id)) {
    await context.engine.unload(record.id);
  }
  if (!(await context.store.delete(record.id))) {
    // Deleted by someone else between the lookup and now.
    throw new LmtabError(
      'model_not_found',
      `Model "${record.id}" not found: it was just deleted.`,
      {
        param: 'model',
      },
    );
  }
  return new Response(null, { status: 200 });
}
