import { LmtabError } from '../errors/index.js';
import type { ModelfileParameters } from './modelfile.js';
import {
  checkParameterValue,
  isParameterName,
  ollamaOnlyParameters,
  parameterNameList,
  readParameterValue,
} from './parameter-specs.js';

/**
 * Checks parameters given as JSON under Ollama's names (an `/api/create` body's `parameters`) and
 * types them as a Modelfile's PARAMETERs would be: numbers or numeric strings, `stop` a string or
 * a list. Throws `invalid_request` naming the parameter, what it expected and what it got.
 */
export function normalizeParameters(raw: Readonly<Record<string, unknown>>): ModelfileParameters {
  const parameters: ModelfileParameters = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || value === null) continue;
    if (!isParameterName(name)) {
      const why = ollamaOnlyParameters.has(name)
        ? 'is an Ollama setting lmtab does not use'
        : 'is not a parameter lmtab knows';
      throw fail(name, `${why} (expected one of ${parameterNameList})`);
    }
    if (name === 'stop') {
      const list: unknown[] = Array.isArray(value) ? value : [value];
      for (const item of list) {
        const problem = checkParameterValue('stop', item);
        if (problem !== undefined) throw fail(name, problem);
      }
      parameters.stop = list as string[];
      continue;
    }
    if (typeof value === 'string') {
      const read = readParameterValue(name, value.trim());
      if ('problem' in read) throw fail(name, read.problem);
      Object.assign(parameters, { [name]: read.value });
      continue;
    }
    const problem = checkParameterValue(name, value);
    if (problem !== undefined) throw fail(name, problem);
    Object.assign(parameters, { [name]: value });
  }
  return parameters;
}

function fail(name: string, problem: string): LmtabError {
  return new LmtabError('invalid_request', `parameter ${name} ${problem}`, {
    param: `parameters.${name}`,
  });
}
