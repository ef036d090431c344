import { jsonResponse } from '../encoders/json-response.js';
import type { RouteContext } from '../pipeline/route-context.js';
import { engineStatusBody } from './engine-status-body.js';

/**
 * `GET /api/lmtab/engine`: the engine's compute path (`engine.info()`) and the models it holds with
 * their busy slots, shown by the GUI's Developer tab, in its own wire shape.
 */
export async function handleEngineInfo(context: RouteContext): Promise<Response> {
  const info = await context.engine.info();
  return jsonResponse(engineStatusBody(info, context.engine.loaded()));
}
