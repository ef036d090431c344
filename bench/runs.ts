import type { ChatTurnsResult } from './chat-turns.js';
import { perSecond, summarize } from './stats.js';
import { processedPromptTokens, type StreamTiming } from './stream-timing.js';

/** Collects per-run values and summarizes them. */
export class Runs {
  readonly promptTokS: number[] = [];
  readonly decodeTokS: number[] = [];
  readonly loadMs: number[] = [];
  readonly turn1: number[] = [];
  readonly last: number[] = [];
  readonly cold: number[] = [];
  promptTokens?: number;
  lastTurnPromptTokens?: number;
  lastTurnColdPromptTokens?: number;

  generation(timing: StreamTiming) {
    if (timing.engine) {
      this.promptTokS.push(perSecond(processedPromptTokens(timing), timing.engine.promptMs));
      this.decodeTokS.push(perSecond(timing.completionTokens, timing.engine.decodeMs));
    }
    this.promptTokens = processedPromptTokens(timing);
  }

  chat(result: ChatTurnsResult) {
    this.turn1.push(result.ttftMs[0] ?? NaN);
    this.last.push(result.ttftMs.at(-1) ?? NaN);
    this.cold.push(result.coldTtftMs);
    this.lastTurnPromptTokens = result.promptTokens.at(-1);
    this.lastTurnColdPromptTokens = result.coldPromptTokens;
  }

  figures() {
    return {
      promptTokS: summarize(this.promptTokS),
      decodeTokS: summarize(this.decodeTokS),
      promptTokens: this.promptTokens,
      ttftTurn1Ms: summarize(this.turn1),
      ttftLastTurnMs: summarize(this.last),
      ttftLastTurnColdMs: summarize(this.cold),
      lastTurnPromptTokens: this.lastTurnPromptTokens,
      lastTurnColdPromptTokens: this.lastTurnColdPromptTokens,
      loadMs: summarize(this.loadMs),
    };
  }
}
