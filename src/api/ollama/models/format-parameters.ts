import type { ModelCustomization } from '../../../modelfile/index.js';

/** Writes a custom model's PARAMETERs as `/api/show` lists them: `name<padding>value` lines. */
export function formatParameters(parameters: ModelCustomization['parameters']): string {
  return Object.entries(parameters)
    .flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).map(
        (v) => `${name.padEnd(30)} ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`,
      ),
    )
    .join('\n');
}
