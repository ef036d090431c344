import { MLCEngine } from '@mlc-ai/web-llm';
import type {
  ChatCompletionRequestStreaming,
  CompletionCreateParamsStreaming,
  GenerationConfig,
} from '@mlc-ai/web-llm';
import type { WebLlmEngineLike } from '../web-llm/web-llm-engine.js';

/** `mlc-chat-config.json` as web-llm reads it (its `ChatConfig`, not exported by the package). */
type ChatConfig = Parameters<MLCEngine['asyncGenerate']>[3];

/** What the scripted model "generates" for one request. */
export interface PipelineScript {
  /** Decoded pieces, one per step (the first comes from prefill); default `['Hello', ',', ' world']`. */
  pieces?: string[];
  /** Wait this long in each decode step (milliseconds), so a test can interrupt; default 0. */
  stepMs?: number;
}

/** What a test can inspect after requests. */
export interface ScriptedWebLlm {
  /** The engine as lmtab drives it. */
  engine: WebLlmEngineLike;
  /** `reload` calls: model id and chat options. */
  reloads: { modelId: string; chatOpts: unknown }[];
  /** The prompt web-llm's conversation code rendered for each prefill. */
  prompts: string[];
  /** Generation configs web-llm built from each request. */
  genConfigs: GenerationConfig[];
  /** How many times web-llm's engine unloaded. */
  unloads: number;
}

/**
 * web-llm's real `MLCEngine` with its GPU pipeline (`LLMChatPipeline`: compiled model, KV cache)
 * replaced by a script. What runs is web-llm's own code: conversation building from the OpenAI
 * messages (`prefill`), the streaming loop (`asyncGenerate`), its chunk, finish-reason and usage
 * shapes, and `interruptGenerate`. `reload` (which fetches artifacts and compiles for WebGPU) is
 * replaced by installing the script; `chatCompletion`/`completion` repeat web-llm's few lines of
 * glue around `asyncGenerate`, because web-llm checks `instanceof LLMChatPipeline` there.
 */
export function createScriptedWebLlm(
  script: (prompt: string) => PipelineScript = () => ({}),
  options: { failReload?: Error; chatConfig?: Partial<ChatConfig> } = {},
): ScriptedWebLlm {
  const real = new MLCEngine({ logLevel: 'SILENT' });
  // web-llm's private state, set as reloadInternal would after loading a model.
  const internals = real as unknown as {
    loadedModelIdToPipeline: Map<string, unknown>;
    loadedModelIdToChatConfig: Map<string, ChatConfig>;
    loadedModelIdToLock: Map<string, { acquire(): Promise<void>; release(): Promise<void> }>;
  };
  const scripted: ScriptedWebLlm = {
    reloads: [],
    prompts: [],
    genConfigs: [],
    unloads: 0,
    engine: {
      async reload(modelId, chatOpts) {
        const id = Array.isArray(modelId) ? modelId[0] : modelId;
        scripted.reloads.push({ modelId: id, chatOpts });
        if (options.failReload) throw options.failReload;
        internals.loadedModelIdToPipeline.set(id, new ScriptedPipeline(script, scripted.prompts));
        internals.loadedModelIdToChatConfig.set(id, { ...chatConfig, ...options.chatConfig });
        internals.loadedModelIdToLock.set(id, createLock());
      },
      chatCompletion: ((request: ChatCompletionRequestStreaming) => {
        return generate(request, generationConfigOf(request));
      }) as unknown as WebLlmEngineLike['chatCompletion'],
      completion: ((request: CompletionCreateParamsStreaming) => {
        return generate(request, generationConfigOf(request));
      }) as unknown as WebLlmEngineLike['completion'],
      interruptGenerate: () => void real.interruptGenerate(),
      async unload() {
        scripted.unloads += 1;
        await real.unload();
      },
    },
  };

  function generate(
    request: ChatCompletionRequestStreaming | CompletionCreateParamsStreaming,
    genConfig: GenerationConfig,
  ) {
    scripted.genConfigs.push(genConfig);
    const model = request.model ?? [...internals.loadedModelIdToPipeline.keys()][0];
    const pipeline = internals.loadedModelIdToPipeline.get(model);
    const chatConfig = internals.loadedModelIdToChatConfig.get(model)!;
    return Promise.resolve(
      real.asyncGenerate(
        request as ChatCompletionRequestStreaming,
        model,
        pipeline as never,
        chatConfig,
        genConfig,
        Date.now(),
      ),
    );
  }
  return scripted;
}

/** The sampling fields web-llm's engine reads from a chat or completion request. */
function generationConfigOf(
  request: ChatCompletionRequestStreaming | CompletionCreateParamsStreaming,
): GenerationConfig {
  return {
    frequency_penalty: request.frequency_penalty,
    presence_penalty: request.presence_penalty,
    repetition_penalty: request.repetition_penalty,
    max_tokens: request.max_tokens,
    stop: request.stop,
    top_p: request.top_p,
    temperature: request.temperature,
    ignore_eos: request.ignore_eos,
  };
}

function createLock() {
  let tail: Promise<void> = Promise.resolve();
  let releaseCurrent: (() => void) | undefined;
  return {
    async acquire() {
      const previous = tail;
      let release!: () => void;
      tail = new Promise<void>((resolve) => (release = resolve));
      await previous;
      releaseCurrent = release;
    },
    release() {
      releaseCurrent?.();
      return Promise.resolve();
    },
  };
}

/** A ChatML-like conversation template, as an `mlc-chat-config.json` carries one. */
const chatConfig: ChatConfig = {
  tokenizer_files: ['tokenizer.json'],
  vocab_size: 32,
  conv_template: {
    system_template: '<|im_start|>system\n{system_message}<|im_end|>\n',
    system_message: 'You are a helpful assistant.',
    roles: {
      user: '<|im_start|>user',
      assistant: '<|im_start|>assistant',
      tool: '<|im_start|>tool',
    },
    role_templates: {
      user: '{user_message}',
      assistant: '{assistant_message}',
      tool: '{tool_message}',
    },
    seps: ['<|im_end|>\n'],
    role_content_sep: '\n',
    role_empty_sep: '\n',
    stop_str: ['<|im_end|>'],
    stop_token_ids: [2],
  },
  context_window_size: 4096,
  sliding_window_size: -1,
  attention_sink_size: -1,
  repetition_penalty: 1,
  frequency_penalty: 0,
  presence_penalty: 0,
  top_p: 1,
  temperature: 0.7,
};

interface ConversationLike {
  isTextCompletion: boolean;
  prompt?: string;
  appendMessage(role: string, message: unknown, name?: string): void;
  appendReplyHeader(role: string): void;
  finishReply(message: string): void;
  getPromptArray(): string[];
  reset?(): void;
}

/** The surface of web-llm's LLMChatPipeline that MLCEngine's generation code calls. */
class ScriptedPipeline {
  // Before the first request, like a fresh pipeline: an empty conversation.
  private conversation: ConversationLike | Record<string, unknown> = {
    messages: [],
    function_string: '',
    use_function_calling: false,
    override_system_message: undefined,
    isTextCompletion: false,
  };
  private pieces: string[] = [];
  private emitted = 0;
  private message = '';
  private stopTriggered = false;
  private finishReason: string | undefined;
  private promptTokens = 0;
  private maxTokens = Infinity;
  private stepMs = 0;

  constructor(
    private readonly script: (prompt: string) => PipelineScript,
    private readonly prompts: string[],
  ) {}

  getConversationObject() {
    return this.conversation;
  }
  setConversation(conversation: ConversationLike) {
    this.conversation = conversation;
  }
  resetChat() {
    this.finishReason = undefined;
  }
  getFinishReason() {
    return this.finishReason;
  }
  setSeed() {}
  async prefillStep(
    input: string,
    role: string,
    roleName: string | undefined,
    config: GenerationConfig,
  ) {
    const conversation = this.conversation as ConversationLike;
    let prompt: string;
    if (conversation.isTextCompletion) {
      prompt = input;
    } else {
      conversation.appendMessage(role, input, roleName);
      conversation.appendReplyHeader('assistant');
      prompt = conversation.getPromptArray().join('');
    }
    this.prompts.push(prompt);
    const script = this.script(prompt);
    this.pieces = script.pieces ?? ['Hello', ',', ' world'];
    this.stepMs = script.stepMs ?? 0;
    this.maxTokens = config.max_tokens ?? Infinity;
    this.promptTokens = prompt.split(/\s+/).filter(Boolean).length;
    this.stopTriggered = false;
    this.emitted = 0;
    this.message = '';
    this.next();
  }
  async decodeStep() {
    if (this.stepMs > 0) await new Promise((resolve) => setTimeout(resolve, this.stepMs));
    this.next();
  }
  private next() {
    if (this.stopTriggered) return;
    this.message += this.pieces[this.emitted] ?? '';
    this.emitted += 1;
    if (this.emitted >= this.maxTokens) this.stop('length');
    else if (this.emitted >= this.pieces.length) this.stop('stop');
  }
  private stop(reason: string) {
    this.stopTriggered = true;
    this.finishReason = reason;
    const conversation = this.conversation as ConversationLike;
    if (!conversation.isTextCompletion) conversation.finishReply(this.message);
  }
  stopped() {
    return this.stopTriggered;
  }
  triggerStop() {
    if (this.stopTriggered) return;
    this.stop('abort');
  }
  getMessage() {
    return this.message;
  }
  getTokenLogprobArray() {
    return [];
  }
  getCurRoundCompletionTotalTokens() {
    return this.emitted;
  }
  getCurRoundDecodingTotalTokens() {
    return Math.max(this.emitted - 1, 0);
  }
  getCurRoundPrefillTotalTokens() {
    return this.promptTokens;
  }
  getCurRoundPrefillTotalTime() {
    return 0.25;
  }
  getCurRoundDecodingTotalTime() {
    return 0.02 * Math.max(this.emitted - 1, 0);
  }
  getCurRoundPrefillTokensPerSec() {
    return this.promptTokens / 0.25;
  }
  getCurRoundDecodingTokensPerSec() {
    return 50;
  }
  dispose() {}
  sync() {
    return Promise.resolve();
  }
}
