import type { ModelRecord } from '../../../store/index.js';
import { formatParameterSize } from './format-parameter-size.js';
import type { OllamaModelDetails } from '../generate/response-types.js';

/** Ollama's `details` of a stored model. */
export function modelDetails(record: ModelRecord): OllamaModelDetails {
  const { gguf } = record;
  return {
    parent_model: record.customization?.from ?? '',
    format: 'gguf',
    family: gguf.architecture,
    families: [gguf.architecture],
    parameter_size: formatParameterSize(gguf.parameterCount),
    quantization_level: gguf.quantization,
  };
}
