/** How one Modelfile PARAMETER is typed and bounded. */
export interface ParameterSpec {
  type: 'int' | 'float' | 'string';
  /** Smallest accepted value, for numbers. */
  min?: number;
  /** Largest accepted value, for numbers. */
  max?: number;
}

/** The PARAMETER names lmtab understands (Ollama's spellings), in the order it writes them. */
export const parameterSpecs = {
  temperature: { type: 'float', min: 0 },
  top_k: { type: 'int', min: 0 },
  top_p: { type: 'float', min: 0, max: 1 },
  min_p: { type: 'float', min: 0, max: 1 },
  repeat_penalty: { type: 'float', min: 0 },
  repeat_last_n: { type: 'int', min: -1 },
  presence_penalty: { type: 'float', min: -2, max: 2 },
  frequency_penalty: { type: 'float', min: -2, max: 2 },
  // -1 (Ollama's default) and -2 mean no limit.
  num_predict: { type: 'int', min: -2 },
  num_ctx: { type: 'int', min: 1 },
  seed: { type: 'int' },
  stop: { type: 'string' },
} as const satisfies Record<string, ParameterSpec>;

/** A PARAMETER name lmtab understands. */
export type ParameterName = keyof typeof parameterSpecs;

/** Ollama parameters lmtab has no use for; named apart so the error can say so. */
export const ollamaOnlyParameters: ReadonlySet<string> = new Set([
  'num_keep',
  'typical_p',
  'num_batch',
  'num_gpu',
  'main_gpu',
  'use_mmap',
  'num_thread',
  'draft_num_predict',
  'penalize_newline',
  'low_vram',
  'f16_kv',
  'logits_all',
  'vocab_only',
  'use_mlock',
  'mirostat',
  'mirostat_tau',
  'mirostat_eta',
]);

/** Whether a string is a PARAMETER name lmtab understands. */
export function isParameterName(name: string): name is ParameterName {
  return Object.hasOwn(parameterSpecs, name);
}

/** The expected-names list used in error messages. */
export const parameterNameList = Object.keys(parameterSpecs).join(', ');

/** What is wrong with a typed value (e.g. `must be an integer, got 0.5`), or undefined. */
export function checkParameterValue(name: ParameterName, value: unknown): string | undefined {
  const spec: ParameterSpec = parameterSpecs[name];
  if (spec.type === 'string') {
    if (typeof value !== 'string') return `must be a string, got ${describe(value)}`;
    return value === '' ? 'must not be empty' : undefined;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return `must be a number, got ${describe(value)}`;
  }
  if (spec.type === 'int' && !Number.isSafeInteger(value)) {
    return `must be an integer, got ${value}`;
  }
  const { min, max } = spec;
  if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
    const range =
      max === undefined
        ? `at least ${min}`
        : min === undefined
          ? `at most ${max}`
          : `between ${min} and ${max}`;
    return `must be ${range}, got ${value}`;
  }
  return undefined;
}

/** Reads PARAMETER text (Go ParseInt/ParseFloat syntax) as a typed value, or says what is wrong. */
export function readParameterValue(
  name: ParameterName,
  text: string,
): { value: number | string } | { problem: string } {
  const spec: ParameterSpec = parameterSpecs[name];
  let value: number | string = text;
  if (spec.type === 'int') {
    if (!/^[+-]?\d+$/.test(text)) return { problem: `must be an integer, got "${text}"` };
    value = Number(text);
  } else if (spec.type === 'float') {
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
      return { problem: `must be a number, got "${text}"` };
    }
    value = Number(text);
  }
  const problem = checkParameterValue(name, value);
  return problem === undefined ? { value } : { problem };
}

function describe(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : Array.isArray(value) ? 'a list' : String(value);
}
