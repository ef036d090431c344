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
export type OpenAiFinishReason = 'stop' | 'length';

/** `chat.completion` answer. */
export interface ChatCompletion extends AnswerMeta {
  object: 'chat.completion';
  choices: {
    index: number;
    message: { role: 'assistant'; content: string };
    logprobs: null;
    finish_reason: OpenAiFinishReason;
  }[];
  usage: OpenAiUsage;
}

/** `chat.completion.chunk` stream event. */
export interface ChatCompletionChunk extends AnswerMeta {
  object: 'chat.completion.chunk';
  choices: {
    index: number;
    delta: { role?: 'assistant'; content?: string };
    logprobs: null;
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
    logprobs: null;
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
