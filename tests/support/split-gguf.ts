import type { GgufModel } from './gguf-writer.js';

/**
 * Splits a model the way llama.cpp's `gguf-split` does: every part is a GGUF file of its own with
 * `split.no`, `split.count` and `split.tensors.count`; the first part also carries all metadata;
 * the tensors are spread over the parts in order.
 */
export function splitGgufModel(model: GgufModel, parts: number): GgufModel[] {
  if (!Number.isInteger(parts) || parts < 2 || parts > model.tensors.length) {
    throw new RangeError(`cannot split ${model.tensors.length} tensors into ${parts} parts`);
  }
  const perPart = Math.ceil(model.tensors.length / parts);
  return Array.from({ length: parts }, (_, index) => ({
    metadata: {
      ...(index === 0 ? model.metadata : {}),
      'split.no': { type: 'uint16', value: index },
      'split.count': { type: 'uint16', value: parts },
      'split.tensors.count': { type: 'int32', value: model.tensors.length },
    },
    tensors: model.tensors.slice(index * perPart, (index + 1) * perPart),
  }));
}
