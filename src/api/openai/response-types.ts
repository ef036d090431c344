/** Token counts in OpenAI's spelling. */
export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Present when the engine says how much of the prompt came from its cache. */
  prompt_tokens_details?: { cached_tokens: number };
}

/** Identity shared by every chunk of one answer. */
export interface AnswerMeta {
  /** `chatcmpl-...` or `cmpl-...`. */
  id: string;
  /** Epoch seconds. */
  created: number;
  model: string;
}

/** OpenAI's `finish_reason` values that lmtab produces. */
export type OpenAiFinishReason = 'stop' | 'length' | 'tool_calls';

/** One token's log probability in OpenAI's chat shape. */
export interface OpenAiTokenLogprob {
  token: string;
  logprob: number;
  bytes: number[] | null;
}

/** `choices[].logprobs` of a chat answer or chunk. */
export interface OpenAiChatLogprobs {
  content: (OpenAiTokenLogprob & { top_logprobs: OpenAiTokenLogprob[] })[];
  refusal: null;
}

/** `choices[].logprobs` of a legacy text completion. */
export interface OpenAiTextLogprobs {
  tokens: string[];
  token_logprobs: number[];
  top_logprobs: Record<string, number>[];
  /** Character offset of each token in the whole answer text. */
  text_offset: number[];
}

/** A complete tool call in an answer. */
export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A piece of a streamed tool call: the first piece of an index carries `id`, `type` and name. */
export interface OpenAiToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

/** `chat.completion` answer. */
export interface ChatCompletion extends AnswerMeta {
  object: 'chat.completion';
  choices: {
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: null;
      reasoning_content?: string;
      tool_calls?: OpenAiToolCall[];
    };
    logprobs: OpenAiChatLogprobs | null;
    finish_reason: OpenAiFinishReason;
  }[];
  usage: OpenAiUsage;
}

/** `chat.completion.chunk` stream event. */
export interface ChatCompletionChunk extends AnswerMeta {
  object: 'chat.completion.chunk';
  choices: {
    index: number;
    delta: {
      role?: 'assistant';
      content?: string;
      refusal?: null;
      reasoning_content?: string;
      tool_calls?: OpenAiToolCallDelta[];
    };
    logprobs: OpenAiChatLogprobs | null;
    finish_reason: OpenAiFinishReason | null;
  }[];
  usage?: OpenAiUsage | null;
}

/** `text_completion` answer, and stream event. */
export interface TextCompletion extends AnswerMeta {
  object: 'text_completion';
  choices: {
    index: number;
    text: string;
    logprobs: OpenAiTextLogprobs | null;
    finish_reason: OpenAiFinishReason | null;
  }[];
  usage?: OpenAiUsage | null;
}

/** One entry of `GET /v1/models`. */
export interface OpenAiModel {
  id: string;
  object: 'model';
  /** Epoch seconds. */
  created: number;
  owned_by: string;
}
