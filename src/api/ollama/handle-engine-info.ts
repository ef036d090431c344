import { jsonResponse } from '../json-response.js';
import type { RouteContext } from '../route-context.js';

/**
 * `GET /api/lmtab/engine`: the engine's compute path (`engine.info()`) and the models it holds with
 * their busy slots, shown by the GUI's Developer tab.
 */
export async function handleEngineInfo(context: RouteContext): Promise<Response> {
  return jsonResponse({ ...(await context.engine.info()), loaded: context.engine.loaded() });
}
