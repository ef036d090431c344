import { modelFormat } from '../store/index.js';
import type { ModelFormat, ModelStore } from '../store/index.js';
import { assertCanGenerate } from './embedding-model.js';
import type {
  EmbedRequest,
  RerankRequest,
  TokenizeRequest,
  DetokenizeRequest,
  Engine,
  EngineInfo,
  GenerateEvent,
  GenerateOptions,
  GenerateRequest,
  LoadedModel,
  LoadOptions,
  SpeakRequest,
  SpeechChunk,
  TranscribeEvent,
  TranscribeRequest,
} from './engine.js';
import { countPromptTokens } from './count-prompt-tokens.js';

/** Options of {@link createEngineSwitch}. */
export interface EngineSwitchOptions {
  /** Where the records (and so the formats) of models are read. */
  store: Pick<ModelStore, 'get'>;
  /** The engine of each model format: wllama for GGUF, web-llm for MLC. */
  engines: Record<ModelFormat, Engine>;
}

/**
 * One `Engine` over several: each request goes to the engine of its model's format (a record's
 * `format`, GGUF when absent). Before a model of one format loads, models of the other are
 * unloaded, so one model at a time holds memory, as within each engine.
 */
export function createEngineSwitch(options: EngineSwitchOptions): Engine {
  const { engines } = options;
  const formats = Object.keys(engines) as ModelFormat[];

  async function formatOf(model: string): Promise<ModelFormat> {
    const record = await options.store.get(model);
    // An unknown model goes to the GGUF engine, which answers model_not_found.
    return record ? modelFormat(record) : 'gguf';
  }

  /** The engine for a model, once the other engines hold nothing. */
  async function engineFor(model: string): Promise<Engine> {
    const format = await formatOf(model);
    for (const other of formats) {
      if (other !== format && engines[other].loaded().length > 0) await engines[other].unload();
    }
    return engines[format];
  }

  /**
   * The engine for a token or audio route: these load their model as generate does, so the other
   * engine makes room first; web-llm, which has neither, refuses without unloading any.
   */
  async function tokenEngine(model: string): Promise<Engine> {
    const format = await formatOf(model);
    return format === 'mlc' ? engines[format] : engineFor(model);
  }

  async function* generate(
    request: GenerateRequest,
    generateOptions?: GenerateOptions,
  ): AsyncGenerator<GenerateEvent> {
    const record = await options.store.get(request.model);
    if (record) assertCanGenerate(record);
    const engine = await engineFor(request.model);
    yield* engine.generate(request, generateOptions);
  }

  async function* transcribe(
    request: TranscribeRequest,
    transcribeOptions?: GenerateOptions,
  ): AsyncGenerator<TranscribeEvent> {
    yield* (await tokenEngine(request.model)).transcribe(request, transcribeOptions);
  }

  async function* speak(
    request: SpeakRequest,
    speakOptions?: GenerateOptions,
  ): AsyncGenerator<SpeechChunk> {
    yield* (await tokenEngine(request.model)).speak(request, speakOptions);
  }

  return {
    generate,
    transcribe,
    speak,
    countTokens: (request, countOptions) => countPromptTokens(generate, request, countOptions),
    async load(model: string, loadOptions?: LoadOptions): Promise<LoadedModel> {
      return (await engineFor(model)).load(model, loadOptions);
    },
    async unload(model?: string): Promise<void> {
      if (model === undefined) {
        await Promise.all(formats.map((format) => engines[format].unload()));
        return;
      }
      await engines[await formatOf(model)].unload(model);
    },
    loaded: () => formats.flatMap((format) => engines[format].loaded()),
    async info(): Promise<EngineInfo> {
      // The engine holding a model reports; with none loaded, the GGUF engine (the default).
      const holding = formats.find((format) => engines[format].loaded().length > 0);
      return engines[holding ?? 'gguf'].info();
    },
    supportsImages: (record) => engines[modelFormat(record)].supportsImages(record),
    // Embedding models are small and load beside a chat model: no other engine is unloaded.
    embed: async (request: EmbedRequest, embedOptions?: GenerateOptions) =>
      engines[await formatOf(request.model)].embed(request, embedOptions),
    rerank: async (request: RerankRequest, rerankOptions?: GenerateOptions) =>
      engines[await formatOf(request.model)].rerank(request, rerankOptions),
    tokenize: async (request: TokenizeRequest, tokenOptions?: GenerateOptions) =>
      (await tokenEngine(request.model)).tokenize(request, tokenOptions),
    detokenize: async (request: DetokenizeRequest, tokenOptions?: GenerateOptions) =>
      (await tokenEngine(request.model)).detokenize(request, tokenOptions),
    applyTemplate: async (request: GenerateRequest, tokenOptions?: GenerateOptions) =>
      (await tokenEngine(request.model)).applyTemplate(request, tokenOptions),
  };
}
