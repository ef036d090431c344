import type { ChatSettings } from './chat-settings.js';

/** Why an answer ended: the model stopped, it hit `max_tokens`, or the person pressed Stop. */
export type TurnFinish = 'stop' | 'length' | 'stopped';

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

/** One message of a conversation. */
export interface ChatTurn {
  /** Stable id (keys the rendered list). */
  id: string;
  role: 'user' | 'assistant';
  /** Text (markdown for answers). */
  content: string;
  /** Attached images as `data:` URIs (user turns). */
  images?: string[];
  /** The model that wrote an answer. */
  model?: string;
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
