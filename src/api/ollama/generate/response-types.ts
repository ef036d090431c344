import type { OllamaDoneFields } from './done-fields.js';

/** One token's log probability in Ollama's shape. */
export interface OllamaTokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

/** The sampled token's log probability and its alternatives (`logprobs`, `top_logprobs`). */
export interface OllamaLogprob extends OllamaTokenLogprob {
  top_logprobs?: OllamaTokenLogprob[];
}

/** A tool call as Ollama answers it: arguments as an object, not JSON text. */
export interface OllamaToolCall {
  function: { name: string; arguments: Record<string, unknown> };
}

/** An `/api/generate` chunk before the last one. */
export interface GenerateChunk {
  model: string;
  /** ISO 8601. */
  created_at: string;
  response: string;
  /** The thinking text of this piece, when the model thinks. */
  thinking?: string;
  logprobs?: OllamaLogprob[];
  done: false;
}

/** The last (or only) `/api/generate` answer. */
export type GenerateDone = Omit<GenerateChunk, 'done'> & OllamaDoneFields;

/** The assistant message of an `/api/chat` chunk. */
export interface OllamaAssistantMessage {
  role: 'assistant';
  content: string;
  thinking?: string;
  tool_calls?: OllamaToolCall[];
}

/** An `/api/chat` chunk before the last one. */
export interface ChatChunk {
  model: string;
  /** ISO 8601. */
  created_at: string;
  message: OllamaAssistantMessage;
  logprobs?: OllamaLogprob[];
  done: false;
}

/** The last (or only) `/api/chat` answer. */
export type ChatDone = Omit<ChatChunk, 'done'> & OllamaDoneFields;

/** `details` of a model in `/api/tags`, `/api/show` and `/api/ps`. */
export interface OllamaModelDetails {
  parent_model: string;
  format: 'gguf';
  family: string;
  families: string[];
  /** e.g. `350M`, `1.2B`. */
  parameter_size: string;
  quantization_level: string;
}
