import type { ChatSettings } from './settings/chat-settings.js';

/**
 * Why an answer ended: the model stopped, it hit `max_tokens`, it called tools, or the person
 * pressed Stop.
 */
export type TurnFinish = 'stop' | 'length' | 'tool_calls' | 'stopped';

/** Measurements of one answer, taken in the page. */
export interface TurnStats {
  /** Tokens generated (the API's `completion_tokens`, or streamed chunks when stopped early). */
  tokens: number;
  /** Prompt tokens, when the API reported usage. */
  promptTokens?: number;
  /** Tokens per second from the first token to the last. */
  tokensPerSecond: number;
  /** Milliseconds from sending to the first token (includes loading and prompt processing). */
  timeToFirstTokenMs: number;
  /** Milliseconds from sending to the end. */
  totalMs: number;
  finishReason: TurnFinish;
}

/** A function call the model made, with the result the person gave it. */
export interface TurnToolCall {
  /** The call's id (`tool_call_id` of the result). */
  id: string;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
  /** The tool's answer, once given; calls without one are left out of later requests. */
  result?: string;
}

/** One message of a conversation. */
export interface ChatTurn {
  /** Stable id (keys the rendered list). */
  id: string;
  role: 'user' | 'assistant';
  /** Text (markdown for answers). */
  content: string;
  /** Attached images as `data:` URIs (user turns). */
  images?: string[];
  /** Attached audio clips (WAV, MP3, FLAC) as `data:` URIs (user turns). */
  audio?: string[];
  /** The model that wrote an answer. */
  model?: string;
  /** An answer's thinking (`reasoning_content`), shown apart from its text. */
  reasoning?: string;
  /** The functions an answer called. */
  toolCalls?: TurnToolCall[];
  /** Whether an answer was asked for as JSON (Structured output): it is shown formatted. */
  json?: boolean;
  stats?: TurnStats;
  /** Why the answer failed, shown inline; failed answers are left out of the next request. */
  error?: string;
}

/** A saved conversation. */
export interface Conversation {
  id: string;
  title: string;
  /** Whether the person named it (else the title follows the first message). */
  renamed: boolean;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds of the last change; the list is sorted by it. */
  updatedAt: number;
  settings: ChatSettings;
  turns: ChatTurn[];
}
