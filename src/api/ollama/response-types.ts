import type { OllamaDoneFields } from './done-fields.js';

/** An `/api/generate` chunk before the last one. */
export interface GenerateChunk {
  model: string;
  /** ISO 8601. */
  created_at: string;
  response: string;
  done: false;
}

/** The last (or only) `/api/generate` answer. */
export type GenerateDone = Omit<GenerateChunk, 'done'> & OllamaDoneFields;

/** The assistant message of an `/api/chat` chunk. */
export interface OllamaAssistantMessage {
  role: 'assistant';
  content: string;
}

/** An `/api/chat` chunk before the last one. */
export interface ChatChunk {
  model: string;
  /** ISO 8601. */
  created_at: string;
  message: OllamaAssistantMessage;
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
