import { join } from 'node:path';
import type { GgufModel } from './gguf-writer.js';
import {
  buildLfm2Vocabulary,
  lfm2Configs,
  lfm2Model,
  lfm2TokenIds,
  writeModelFile,
} from './lfm2-fixtures.js';

/** The agents' model file: the tiny `lfm2` shape, trained (its metadata says) for 131,072 tokens. */
export const agentModelFile = 'tiny-lfm2-agent.gguf';

/** What the agents' model answers to every prompt it answers freely. */
export const agentAnswer = 'Hi';

/**
 * The tiny model made predictable: every answer it picks itself is {@link agentAnswer}, so an
 * agent's run takes the same path every day, whatever the date and paths in its prompt (random
 * weights answer gibberish, and call tools with gibberish arguments on some days and not others).
 * A forced call still goes through: its grammar picks the tokens, and `<|im_end|>` follows it.
 *
 * How: the layers' random weights are small, so the final state is about the current token's
 * embedding. Embeddings carry a constant first component; the newline that ends the generation
 * prompt, `H` and `i` each add one of their own. A separate output matrix (llama.cpp's
 * `output.weight`, instead of the tied embeddings) reads the newline's component as `H`, `H`'s as
 * `i`, and `i`'s and the constant one as `<|im_end|>`.
 */
export function agentLfm2Model(): GgufModel {
  const model = lfm2Model({ name: 'tiny-lfm2-agent', contextLength: 131_072 });
  const { embedding, vocab } = lfm2Configs.tiny;
  const { tokens } = buildLfm2Vocabulary(vocab);
  const id = (text: string) => tokens.indexOf(text);
  // GPT-2's byte-level alphabet writes the newline byte as U+010A.
  const chain = [id('\u010a'), id('H'), id('i'), lfm2TokenIds.imEnd];
  const input = new Float32Array(embedding * vocab);
  const output = new Float32Array(embedding * vocab);
  let seed = 0x5eed;
  const noise = () => {
    // A small LCG: the same bytes on every run, spread about ±0.03.
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    return (seed / 2 ** 32 - 0.5) * 0.06;
  };
  for (let token = 0; token < vocab; token++) {
    const row = token * embedding;
    input[row] = 1;
    for (let i = 1; i < embedding; i++) {
      input[row + i] = noise();
      output[row + i] = noise();
    }
  }
  // Component 1 + k marks chain token k; the output row of token k + 1 reads it.
  for (let k = 0; k < chain.length - 1; k++) {
    input[chain[k]! * embedding + 1 + k] = 8;
    output[chain[k + 1]! * embedding + 1 + k] = 10;
  }
  // Whatever else the model just read (a forced call's last token), it ends the answer.
  output[lfm2TokenIds.imEnd * embedding] = 3;
  const tensors = model.tensors.map((tensor) =>
    tensor.name === 'token_embd.weight'
      ? { ...tensor, data: { kind: 'values' as const, values: input } }
      : tensor,
  );
  tensors.push({
    name: 'output.weight',
    dims: [embedding, vocab],
    type: 'F16',
    data: { kind: 'values', values: output },
  });
  return { metadata: model.metadata, tensors };
}

/** Writes {@link agentModelFile} into `dir` (when missing or different); returns its path. */
export async function ensureAgentFixture(dir: string): Promise<string> {
  const path = join(dir, agentModelFile);
  await writeModelFile(path, agentLfm2Model());
  return path;
}
