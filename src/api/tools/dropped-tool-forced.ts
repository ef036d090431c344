import { LmtabError } from '../../errors/index.js';

/**
 * The 400 for a `tool_choice` that forces a tool lmtab drops from `tools` (a built-in or server
 * tool such as web search): a forced call changes what the answer must be, so it is refused.
 *
 * @param tool how the choice names the tool, e.g. `the built-in tool of type "web_search"`
 * @param param the choice's field path, e.g. `tool_choice`
 */
export function droppedToolForced(tool: string, param: string): LmtabError {
  return new LmtabError(
    'invalid_request',
    `Invalid \`${param}\`: expected a tool lmtab runs (one given with a JSON Schema of its arguments), received a choice that forces ${tool}; built-in and server tools are dropped from \`tools\`.`,
    { param },
  );
}
