import type { AppConfig } from '@mlc-ai/web-llm';
import type { MlcModelSpec } from '../../store/index.js';

/** One chat model of web-llm's catalog, as lmtab lists and downloads it. */
export interface MlcCatalogEntry extends MlcModelSpec {
  /** Quantization from the id, e.g. `q4f16_1`, `q0f32`. */
  quantization: string;
  /** GPU memory web-llm estimates for the model, in MB. */
  vramMB?: number;
  /** Whether web-llm marks it as fit for phones and small GPUs. */
  lowResource: boolean;
}

/** web-llm's `ModelType.embedding`: not a chat model. */
const embeddingModelType = 1;
const vlmModelType = 2;

/**
 * The chat models of a web-llm app config (its `prebuiltAppConfig`), embedding models left out.
 * A model with f16 weights or activations (`q4f16_1`, `q0f16`) needs `shader-f16` even when the
 * catalog does not say so: its compiled kernels use f16.
 */
export function mlcCatalog(appConfig: AppConfig): MlcCatalogEntry[] {
  return appConfig.model_list
    .filter((model) => model.model_type !== embeddingModelType)
    .map((model) => {
      const quantization = /-(q\d+f\d+(?:_\d+)?)-/.exec(`${model.model_id}-`)?.[1] ?? 'unknown';
      const features = new Set(model.required_features ?? []);
      if (/f16/.test(quantization)) features.add('shader-f16');
      const entry: MlcCatalogEntry = {
        catalogId: model.model_id,
        modelUrl: model.model,
        modelLibUrl: model.model_lib,
        requiredFeatures: [...features],
        vision: model.model_type === vlmModelType,
        quantization,
        lowResource: model.low_resource_required === true,
      };
      if (model.vram_required_MB !== undefined) entry.vramMB = model.vram_required_MB;
      if (model.overrides !== undefined) entry.overrides = { ...model.overrides };
      if (model.integrity !== undefined) entry.integrity = { ...model.integrity };
      if (model.model_manifest !== undefined) entry.manifest = model.model_manifest;
      return entry;
    });
}

/** Why this adapter cannot run an entry, or undefined when it can. */
export function mlcUnsupportedReason(
  entry: Pick<MlcCatalogEntry, 'requiredFeatures'>,
  adapterFeatures: ReadonlySet<string>,
): string | undefined {
  const missing = entry.requiredFeatures.filter((feature) => !adapterFeatures.has(feature));
  return missing.length === 0
    ? undefined
    : `needs the WebGPU feature${missing.length === 1 ? '' : 's'} ${missing.join(', ')}, which this GPU lacks`;
}
