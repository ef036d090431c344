import type { ChatWorkload } from './chat-turns.js';

/** Sizes the benchmark runs: `tiny` proves the harness (quick mode), the others measure. */
export type BenchSize = 'tiny' | '350M' | '1.2B' | '2.6B' | '8B-A1B';

/** Weight types of the measured files: Q8_0 from the project's writer, Q4_K_M quantized from it. */
export type BenchQuant = 'Q8_0' | 'Q4_K_M';

/** What the benchmark measures and how much; every length is in tokens. */
export interface BenchSettings {
  /** Quick mode: tiny model, one run, short generations; proves the harness, measures nothing. */
  quick: boolean;
  sizes: BenchSize[];
  /** Runs of each figure (the median is reported). */
  runs: number;
  /** Raw prompt of the prompt-processing figure (pp). */
  promptTokens: number;
  /** Generated tokens of the decode figure (tg), end-of-sequence ignored. */
  decodeTokens: number;
  /** Turns of the chat whose time to first token is measured on the first and the last. */
  turns: number;
  /** Words in each user message of the chat (one token each). */
  userMessageTokens: number;
  /** Tokens of each answer in the chat. */
  replyTokens: number;
  /** User message of the transport and concurrency figures (short: less prompt-time noise). */
  transportPromptTokens: number;
  /** Runs of the transport figures (cheap, and their targets are small differences). */
  transportRuns: number;
  /** Answer of the transport figures. */
  transportDecodeTokens: number;
  /** Concurrent clients of the throughput figure. */
  clients: number[];
  /** Answer of each concurrent client. */
  clientTokens: number;
  /** Context length every engine loads with. */
  contextLength: number;
}

/** The settings of a full run, or of a quick one. */
export function benchSettings(quick: boolean): BenchSettings {
  if (quick) {
    return {
      quick,
      sizes: ['tiny'],
      runs: 1,
      promptTokens: 64,
      decodeTokens: 16,
      turns: 5,
      userMessageTokens: 8,
      replyTokens: 8,
      transportPromptTokens: 8,
      transportRuns: 1,
      transportDecodeTokens: 16,
      clients: [1, 4, 8],
      clientTokens: 8,
      contextLength: 4096,
    };
  }
  return {
    quick,
    sizes: ['350M', '1.2B'],
    runs: 3,
    promptTokens: 512,
    decodeTokens: 128,
    turns: 5,
    userMessageTokens: 48,
    replyTokens: 64,
    transportPromptTokens: 8,
    transportRuns: 5,
    transportDecodeTokens: 128,
    clients: [1, 4, 8],
    clientTokens: 128,
    contextLength: 4096,
  };
}

/**
 * Texts made of the model's one-token words (the `words` fillers of the fixture vocabulary), so a
 * text of n words is n tokens. Each text starts with a word no earlier text started with, so no
 * prompt shares a cached prefix with an earlier one unless the benchmark means it to.
 */
export class WordTexts {
  private next = 0;
  private state = 12345;

  /** @param words One-token words, each with its leading space (` bcf`). */
  constructor(private readonly words: readonly string[]) {
    if (words.length === 0) throw new RangeError('no one-token words to build texts from');
  }

  /** A first word not used as a first word before (they repeat only past the vocabulary). */
  fresh(): string {
    return this.words[this.next++ % this.words.length]!;
  }

  /** `count` pseudo-random words (the same sequence every run of the benchmark). */
  filler(count: number): string {
    let text = '';
    for (let i = 0; i < count; i++) {
      this.state = (this.state * 1103515245 + 12345) % 2 ** 31;
      text += this.words[this.state % this.words.length];
    }
    return text;
  }

  /** A text of exactly `tokens` words starting with a fresh word. */
  text(tokens: number): string {
    return this.fresh() + this.filler(tokens - 1);
  }

  /** A conversation for the turn benchmark. */
  chat(turns: number, userTokens: number, replyTokens: number): ChatWorkload {
    const rest = this.filler(userTokens - 1);
    const userMessages = [this.fresh() + rest];
    for (let i = 1; i < turns; i++) userMessages.push(this.text(userTokens));
    return { userMessages, replyTokens, coldFirstMessage: this.fresh() + rest };
  }
}
