import type { ChatTurnsResult, ChatWorkload } from './chat-turns.js';

/** What the native reference runs, in a child process of its own. */
export interface NativeJob {
  /** The file to import @fugood/llama.node from (installed on first use: optional-package.ts). */
  packageEntry: string;
  model: string;
  threads: number;
  contextLength: number;
  /** One raw prompt per run (each with a fresh first word). */
  prompts: string[];
  decodeTokens: number;
  /** One conversation per run. */
  chats: ChatWorkload[];
}

/** What the native reference measured; one entry per run. */
export interface NativeResult {
  loadMs: number[];
  promptTokS: number[];
  decodeTokS: number[];
  promptTokens: number[];
  completionTokens: number[];
  chats: ChatTurnsResult[];
  /** VmHWM of the child process: its peak resident memory. */
  peakRssBytes: number;
  /** llama.cpp's system info line. */
  systemInfo: string;
}

/** Prefix of the child's result line on stdout (llama.cpp prints its own lines there too). */
export const nativeResultMarker = 'LMTAB_BENCH_RESULT ';
