import { test as setup } from '@playwright/test';
import { lfm2Model, writeModelFile } from '../support/lfm2-fixtures.js';
import { ensureChromiumWebgpu } from '../support/webgpu/chromium-webgpu.mjs';
import { fixture } from './support/app.js';

// The `webgpu` project's dependency: what its browser's environment names must exist before it
// starts (a fresh machine fetches lavapipe and the Vulkan headers once, then gcc builds the layer).
setup(
  'lavapipe and the Chromium layer are in place, and the WebGPU fixtures written @webgpu',
  async () => {
    setup.setTimeout(600_000);
    const paths = ensureChromiumWebgpu({ log: (line) => console.log(line) });
    setup.info().annotations.push({ type: 'layer', description: paths.layerLibrary });
    // The tiny F16 model with a vocabulary of words: every top-5 candidate has a text of its own.
    await writeModelFile(
      fixture('tiny-lfm2-f16-words.gguf'),
      lfm2Model({ fillers: 'words', name: 'tiny-lfm2-f16-words' }),
    );
  },
);
