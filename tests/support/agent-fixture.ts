import { join } from 'node:path';
import type { GgufModel } from './gguf-writer.js';
import { lfm2Configs, lfm2Model, lfm2TokenIds, writeModelFile } from './lfm2-fixtures.js';

/** The agents' model: the tiny `lfm2` shape, trained (its metadata says) for 131,072 tokens. */
export const agentModelFile = 'tiny-lfm2-agent.gguf';

/**
 * The tiny model made quiet: every answer it picks itself is empty (its first token is always
 * `<|im_end|>`), so an agent's run takes the same path every day, whatever the date and paths in
 * its prompt. Random weights would answer gibberish and call tools with gibberish arguments on
 * some days and not others. A forced call still goes through: the grammar masks `<|im_end|>`
 * until the call is complete.
 *
 * How: every token embedding carries a constant first component, which the layers' small random
 * weights barely change, so the final norm leaves it dominant; the output shares the embeddings,
 * and `<|im_end|>`'s first component is ten times the others', so its logit leads by far.
 */
export function quietLfm2Model(): GgufModel {
  const model = lfm2Model({ name: 'tiny-lfm2-agent', contextLength: 131_072 });
  const { embedding, vocab } = lfm2Configs.tiny;
  const values = new Float32Array(embedding * vocab);
  let seed = 0x5eed;
  const noise = () => {
    // A small LCG: the same bytes on every run, spread about ±0.03.
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    return (seed / 2 ** 32 - 0.5) * 0.06;
  };
  for (let token = 0; token < vocab; token++) {
    const row = token * embedding;
    values[row] = token === lfm2TokenIds.imEnd ? 10 : 1;
    for (let i = 1; i < embedding; i++) values[row + i] = noise();
  }
  return {
    metadata: model.metadata,
    tensors: model.tensors.map((tensor) =>
      tensor.name === 'token_embd.weight' ? { ...tensor, data: { kind: 'values', values } } : tensor,
    ),
  };
}

/** Writes {@link agentModelFile} into `dir` (when missing or different); returns its path. */
export async function ensureAgentFixture(dir: string): Promise<string> {
  const path = join(dir, agentModelFile);
  await writeModelFile(path, quietLfm2Model());
  return path;
}
