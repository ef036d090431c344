import { jsonResponse } from '../encoders/json-response.js';
import type { RouteContext } from '../pipeline/route-context.js';

/** `GET /api/version`: lmtab's version. */
export function handleVersion(context: RouteContext): Promise<Response> {
  return Promise.resolve(jsonResponse({ version: context.version }));
}
