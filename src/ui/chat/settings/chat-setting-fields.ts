// The Chat settings sidebar's numeric fields and its stop-string box, as data and pure helpers.

/** A numeric sampling setting shown with a slider and an exact field. */
export interface NumberField {
  key: 'temperature' | 'topP' | 'topK' | 'repeatPenalty';
  label: string;
  hint: string;
  min: number;
  max: number;
  step: number;
  /** Whether a slider accompanies the field (the field itself may go past its end). */
  slider: boolean;
  /** Largest value the API accepts, when there is one. */
  limit?: number;
  /** Whether only whole numbers make sense. */
  integer?: boolean;
}

/** The sampling settings with a slider or a plain number field, in sidebar order. */
export const fields: NumberField[] = [
  {
    key: 'temperature',
    label: 'Temperature',
    hint: 'Randomness; 0 always picks the likeliest token.',
    min: 0,
    max: 2,
    step: 0.05,
    slider: true,
  },
  {
    key: 'topP',
    label: 'Top P',
    hint: 'Samples from the smallest set of tokens whose probability adds up to P.',
    min: 0,
    max: 1,
    step: 0.01,
    slider: true,
    limit: 1,
  },
  {
    key: 'topK',
    label: 'Top K',
    hint: 'Samples from the K likeliest tokens; 0 turns it off.',
    min: 0,
    max: 200,
    step: 1,
    slider: false,
    integer: true,
  },
  {
    key: 'repeatPenalty',
    label: 'Repeat penalty',
    hint: 'Above 1 discourages repeating recent tokens; 1 turns it off.',
    min: 0,
    max: 2,
    step: 0.05,
    slider: true,
  },
];

/** A whole-number setting that may be left empty (`null`): the engine then decides. */
export interface OptionalField {
  key: 'maxTokens' | 'seed';
  id: string;
  label: string;
  placeholder: string;
  hint: string;
  min: number;
  max: number;
}

/** The settings that may be left empty, in sidebar order. */
export const optionalFields: OptionalField[] = [
  {
    key: 'maxTokens',
    id: 'max-tokens',
    label: 'Max tokens',
    placeholder: 'No limit',
    hint: 'Longest answer in tokens; empty leaves it to the context length.',
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
  },
  {
    key: 'seed',
    id: 'seed',
    label: 'Seed',
    placeholder: 'Random',
    hint: 'The same seed, settings and conversation give the same answer; empty draws a new one each time.',
    min: 0,
    // llama.cpp's seeds are 32-bit, and 2^32 - 1 means "draw one".
    max: 2 ** 32 - 2,
  },
];

/** Reads the stop strings box: one per line, with `\n` and `\t` standing for newline and tab. */
export function parseStop(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/\\n/g, '\n').replace(/\\t/g, '\t'));
}

/** Writes stop strings for the box: one per line, newlines and tabs as `\n` and `\t`. */
export function formatStop(stop: string[]): string {
  return stop.map((s) => s.replace(/\n/g, '\\n').replace(/\t/g, '\\t')).join('\n');
}
