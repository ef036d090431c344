import { LmtabError } from '../../errors/index.js';
import type { CliContext } from '../cli-context.js';
import { formatShow } from '../format/format-show.js';

/** Options of {@link showCommand}: each prints one field alone. */
export interface ShowOptions {
  modelfile?: boolean;
  parameters?: boolean;
  template?: boolean;
  system?: boolean;
  license?: boolean;
}

/** `lmtab show MODEL`: the model's facts, or one of its Modelfile fields. */
export async function showCommand(
  context: CliContext,
  model: string,
  options: ShowOptions,
): Promise<void> {
  const fields = (['modelfile', 'parameters', 'template', 'system', 'license'] as const).filter(
    (f) => options[f] === true,
  );
  if (fields.length > 1) {
    throw new LmtabError(
      'invalid_request',
      `Expected at most one of --modelfile, --parameters, --template, --system, --license; got ${fields.map((f) => `--${f}`).join(' and ')}.`,
    );
  }
  const client = await context.connect();
  const show = await client.show(model);
  const [field] = fields;
  if (field === undefined) {
    context.stdout.write(formatShow(show));
    return;
  }
  const value = show[field] ?? '';
  if (value === '') {
    const what = field === 'modelfile' ? 'Modelfile' : field;
    context.stderr.write(`No ${what} was specified for this model.\n`);
    return;
  }
  context.stdout.write(value.endsWith('\n') ? value : `${value}\n`);
}
