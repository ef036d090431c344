import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { createLanguageModelClass } from '../../src/prompt-api/index.js';
import type { Relay } from '../../src/relay/index.js';
import { testPorts } from '../support/test-ports.js';
import { fixture } from './support/app.js';
import { openEngineTab, startRelay, type EngineTab } from './support/relay.js';

// lmtab's `LanguageModel` (Chrome's Prompt API) on the real engine: a page that loads the script
// tag form and then runs the Prompt API's documented examples (availability, create with
// initialPrompts and a monitor, prompt, promptStreaming, responseConstraint, append,
// measureContextUsage, clone, destroy), answered through the service worker; and the same module
// from Node against the relay. The tiny model's answers are random words: the checks are on shapes,
// on the JSON schema being honoured, and on the conversation being kept. Answers are bounded at 128
// tokens (`max_tokens`, lmtab's addition): room for the schema's answer with llama.cpp's grammar
// whitespace.

const model = 'tiny-lfm2';

/** What the documented examples gave, in plain values. */
interface ExampleResults {
  installed: string | undefined;
  availability: string;
  textAvailability: string;
  audioAvailability: string;
  params: Record<string, number>;
  initialUsage: number;
  contextWindow: number;
  poem: string;
  chunks: string[];
  rating: unknown;
  usageBeforeAppend: number;
  usageAfterAppend: number;
  measured: number;
  clonePrompt: string;
  cloneUsage: number;
  destroyed: string;
  imageRefused: string;
}

/** Chrome's documented examples, run against whichever `LanguageModel` is given. */
async function runExamples(LanguageModel: {
  availability(options?: object): Promise<string>;
  params(): Promise<Record<string, number>>;
  create(options?: object): Promise<{
    prompt(input: unknown, options?: object): Promise<string>;
    promptStreaming(input: unknown, options?: object): ReadableStream<string>;
    append(input: unknown): Promise<void>;
    measureContextUsage(input: unknown): Promise<number>;
    clone(): Promise<{ prompt(input: unknown): Promise<string>; contextUsage: number }>;
    destroy(): void;
    contextUsage: number;
    contextWindow: number;
  }>;
}): Promise<Omit<ExampleResults, 'installed'>> {
  const availability = await LanguageModel.availability();
  const textAvailability = await LanguageModel.availability({
    expectedInputs: [{ type: 'text', languages: ['en'] }],
    expectedOutputs: [{ type: 'text', languages: ['en'] }],
  });
  const audioAvailability = await LanguageModel.availability({
    expectedInputs: [{ type: 'audio' }],
  });
  const params = await LanguageModel.params();
  const session = await LanguageModel.create({
    monitor(m: EventTarget) {
      m.addEventListener('downloadprogress', () => undefined);
    },
    initialPrompts: [
      { role: 'system', content: 'You are a helpful and friendly assistant.' },
      { role: 'user', content: 'What is the capital of Italy?' },
      { role: 'assistant', content: 'The capital of Italy is Rome.' },
    ],
  });
  const initialUsage = session.contextUsage;
  const poem = await session.prompt('Write me a poem!');
  const chunks: string[] = [];
  const stream = session.promptStreaming('Write me an extra-long poem!');
  for await (const chunk of stream as unknown as AsyncIterable<string>) chunks.push(chunk);
  const schema = {
    type: 'object',
    required: ['rating'],
    additionalProperties: false,
    properties: { rating: { type: 'integer', minimum: 0, maximum: 5 } },
  };
  const result = await session.prompt(
    'Summarize this feedback into a rating between 0-5. Only output a JSON object { rating }, with a single property whose value is a number: The food was delicious, service was excellent, will recommend.',
    { responseConstraint: schema },
  );
  const rating = (JSON.parse(result) as { rating: unknown }).rating;
  const usageBeforeAppend = session.contextUsage;
  await session.append([{ role: 'user', content: 'Remember that my favourite colour is blue.' }]);
  const usageAfterAppend = session.contextUsage;
  const measured = await session.measureContextUsage('How many tokens is this sentence?');
  const clone = await session.clone();
  const clonePrompt = await clone.prompt('And what is my favourite colour?');
  const cloneUsage = clone.contextUsage;
  const contextWindow = session.contextWindow;
  session.destroy();
  const destroyed = await session.prompt('Hello?').then(
    () => 'answered',
    (error: Error) => error.name,
  );
  const imageRefused = await LanguageModel.create({ expectedInputs: [{ type: 'image' }] }).then(
    () => 'created',
    (error: Error) => error.name,
  );
  return {
    availability,
    textAvailability,
    audioAvailability,
    params,
    initialUsage,
    contextWindow,
    poem,
    chunks,
    rating,
    usageBeforeAppend,
    usageAfterAppend,
    measured,
    clonePrompt,
    cloneUsage,
    destroyed,
    imageRefused,
  };
}

function checkResults(results: Omit<ExampleResults, 'installed'>): void {
  expect(results.availability).toBe('available');
  expect(results.textAvailability).toBe('available');
  expect(results.audioAvailability).toBe('unavailable');
  expect(results.params).toMatchObject({ defaultTopK: expect.any(Number), maxTemperature: 2 });
  // The initial prompts are counted by the model's tokenizer and template.
  expect(results.initialUsage).toBeGreaterThan(10);
  expect(results.contextWindow).toBeGreaterThan(0);
  expect(typeof results.poem).toBe('string');
  expect(results.poem.length).toBeGreaterThan(0);
  expect(results.chunks.length).toBeGreaterThan(1);
  // The schema was honoured: an integer from 0 to 5.
  expect(Number.isInteger(results.rating)).toBe(true);
  expect(results.rating as number).toBeGreaterThanOrEqual(0);
  expect(results.rating as number).toBeLessThanOrEqual(5);
  // The conversation grows with each turn, and append adds to it without an answer.
  expect(results.usageBeforeAppend).toBeGreaterThan(results.initialUsage);
  expect(results.usageAfterAppend).toBeGreaterThan(results.usageBeforeAppend);
  expect(results.measured).toBeGreaterThan(3);
  expect(results.clonePrompt.length).toBeGreaterThan(0);
  expect(results.cloneUsage).toBeGreaterThan(results.usageAfterAppend);
  expect(results.destroyed).toBe('InvalidStateError');
  expect(results.imageRefused).toBe('NotSupportedError');
}

test.describe("lmtab's LanguageModel (Chrome's Prompt API)", () => {
  let relay: Relay;
  let tab: EngineTab;

  test.beforeAll(async ({ browser }) => {
    relay = await startRelay(testPorts.relayPromptApi);
    tab = await openEngineTab(browser, relay, [
      { file: 'tiny-lfm2.gguf' },
      { file: 'tiny-lfm2-audio.gguf', projector: 'mmproj-tiny-lfm2-audio.gguf' },
    ]);
  });

  test.afterAll(async () => {
    await tab?.context.close();
    await relay?.close();
  });

  test("a page loads the script tag form and runs Chrome's documented examples, through the service worker", async () => {
    test.setTimeout(180_000);
    const installed = await tab.page.evaluate(async (model) => {
      // The script tag form, as a page writes it (force: Chromium may have its own, unusable here).
      const script = document.createElement('script');
      script.type = 'module';
      script.src = `/lmtab-language-model.js?model=${model}&force=1&max_tokens=128`;
      const loaded = new Promise((resolve, reject) => {
        script.onload = resolve;
        script.onerror = reject;
      });
      document.head.append(script);
      await loaded;
      return document.documentElement.dataset.lmtabLanguageModel;
    }, model);
    // The examples as the page's own code (evaluated whole: the app's CSP allows no eval in it).
    const results = {
      installed,
      ...((await tab.page.evaluate(`(${runExamples.toString()})(window.LanguageModel)`)) as Omit<
        ExampleResults,
        'installed'
      >),
    };
    expect((results as ExampleResults).installed).toBe(model);
    checkResults(results as ExampleResults);
  });

  test('the same module from Node, against the relay', async () => {
    test.setTimeout(180_000);
    const LanguageModel = createLanguageModelClass({ baseUrl: relay.url, model, maxTokens: 128 });
    checkResults(await runExamples(LanguageModel as never));
    // A model the relay's engine does not have is downloadable, not available.
    const missing = createLanguageModelClass({ baseUrl: relay.url, model: 'no-such-model' });
    expect(await missing.availability()).toBe('downloadable');
  });

  test('audio in a prompt: an AudioBuffer in the page, a WAV Blob from Node', async () => {
    test.setTimeout(180_000);
    const audioModel = 'tiny-lfm2-audio';
    const inPage = await tab.page.evaluate(async (model) => {
      const script = document.createElement('script');
      script.type = 'module';
      script.src = `/lmtab-language-model.js?model=${model}&force=1&max_tokens=4`;
      await new Promise((resolve, reject) => {
        script.onload = resolve;
        script.onerror = reject;
        document.head.append(script);
      });
      const LanguageModel = (window as unknown as { LanguageModel: LanguageModelLike })
        .LanguageModel;
      const expectedInputs = [{ type: 'audio' }];
      const availability = await LanguageModel.availability({ expectedInputs });
      const session = await LanguageModel.create({ expectedInputs });
      // One second of a 440 Hz tone, as a page gets it from decodeAudioData or a recorder.
      const buffer = new AudioBuffer({ length: 16_000, sampleRate: 16_000, numberOfChannels: 1 });
      buffer.getChannelData(0).forEach((_, i, data) => {
        data[i] = 0.4 * Math.sin((2 * Math.PI * 440 * i) / 16_000);
      });
      const message = [
        {
          role: 'user',
          content: [
            { type: 'text', value: 'What do you hear?' },
            { type: 'audio', value: buffer },
          ],
        },
      ];
      const measured = await session.measureInputUsage(message);
      const answer = await session.prompt(message);
      return { availability, measured, answer: typeof answer, usage: session.contextUsage };
    }, audioModel);
    checkAudio(inPage);
    const LanguageModel = createLanguageModelClass({
      baseUrl: relay.url,
      model: audioModel,
      maxTokens: 4,
    });
    const expectedInputs = [{ type: 'audio' as const }];
    const session = await LanguageModel.create({ expectedInputs });
    const wav = new Blob([await readFile(fixture('tone-1s.wav'))], { type: 'audio/wav' });
    const message = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, value: 'What do you hear?' },
          { type: 'audio' as const, value: wav },
        ],
      },
    ];
    const measured = await session.measureInputUsage(message);
    const answer = await session.prompt(message);
    checkAudio({
      availability: await LanguageModel.availability({ expectedInputs }),
      measured,
      answer: typeof answer,
      usage: session.contextUsage,
    });
  });
});

/** The shape of a `LanguageModel` class a page's code uses. */
interface LanguageModelLike {
  availability(options: object): Promise<string>;
  create(options: object): Promise<{
    measureInputUsage(input: unknown): Promise<number>;
    prompt(input: unknown): Promise<string>;
    contextUsage: number;
  }>;
}

/** The clip reached the projector: Whisper's 30 s window is 750 tokens of the prompt. */
function checkAudio(results: {
  availability: string;
  measured: number;
  answer: string;
  usage: number;
}): void {
  expect(results.availability).toBe('available');
  expect(results.measured).toBeGreaterThanOrEqual(750);
  expect(results.answer).toBe('string');
  expect(results.usage).toBeGreaterThan(results.measured);
}
