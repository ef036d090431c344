import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { mlcCatalog, mlcUnsupportedReason } from './mlc-catalog.js';

describe('mlcCatalog over web-llm’s prebuilt catalog', () => {
  const catalog = mlcCatalog(prebuiltAppConfig);

  it('lists the chat models and leaves the embedding models out', () => {
    const embeddings = prebuiltAppConfig.model_list.filter((m) => m.model_type === 1).length;
    expect(embeddings).toBeGreaterThan(0);
    expect(catalog).toHaveLength(prebuiltAppConfig.model_list.length - embeddings);
    expect(catalog.some((e) => e.catalogId.startsWith('snowflake-arctic-embed'))).toBe(false);
  });

  it('maps an entry with its URLs, size, quantization and context override', () => {
    const entry = catalog.find((e) => e.catalogId === 'Llama-3.2-1B-Instruct-q4f32_1-MLC');
    expect(entry).toEqual({
      catalogId: 'Llama-3.2-1B-Instruct-q4f32_1-MLC',
      modelUrl: 'https://huggingface.co/mlc-ai/Llama-3.2-1B-Instruct-q4f32_1-MLC',
      modelLibUrl: expect.stringMatching(
        /^https:\/\/raw\.githubusercontent\.com\/mlc-ai\/binary-mlc-llm-libs\/.+-webgpu\.wasm$/,
      ),
      requiredFeatures: [],
      vision: false,
      quantization: 'q4f32_1',
      vramMB: 1128.82,
      lowResource: true,
      overrides: { context_window_size: 4096 },
    });
  });

  it('marks every f16 model as needing shader-f16, and vision models as such', () => {
    const f16 = catalog.filter((e) => e.quantization.includes('f16'));
    expect(f16.length).toBeGreaterThan(50);
    expect(f16.every((e) => e.requiredFeatures.includes('shader-f16'))).toBe(true);
    expect(catalog.filter((e) => e.vision).map((e) => e.catalogId)).toContain(
      'Phi-3.5-vision-instruct-q4f32_1-MLC',
    );
    expect(catalog.find((e) => e.manifest !== undefined)?.manifest).toBe('mlc-model-manifest.json');
  });

  it('says why an adapter cannot run an entry', () => {
    expect(mlcUnsupportedReason({ requiredFeatures: ['shader-f16'] }, new Set())).toBe(
      'needs the WebGPU feature shader-f16, which this GPU lacks',
    );
    expect(
      mlcUnsupportedReason({ requiredFeatures: ['shader-f16'] }, new Set(['shader-f16'])),
    ).toBeUndefined();
  });
});
