import type { ModelCustomization } from './model-customization.js';

/** Typed PARAMETER values of a Modelfile, under Ollama's names; `stop` lines accumulate. */
export type ModelfileParameters = {
  /** Randomness, 0 = greedy. */
  temperature?: number;
  /** Keep the K most likely tokens; 0 disables. */
  top_k?: number;
  /** Nucleus sampling mass, 0..1. */
  top_p?: number;
  /** Minimum probability relative to the top token, 0..1. */
  min_p?: number;
  /** Penalty on repeated tokens, 1 = off. */
  repeat_penalty?: number;
  /** Tokens looked back for repetitions; 0 disables, -1 = the context length. */
  repeat_last_n?: number;
  /** Presence penalty, -2..2. */
  presence_penalty?: number;
  /** Frequency penalty, -2..2. */
  frequency_penalty?: number;
  /** Most tokens to generate; -1 (or -2) for no limit. */
  num_predict?: number;
  /** Context length in tokens. */
  num_ctx?: number;
  /** Random seed. */
  seed?: number;
  /** Stop sequences, in the order of their lines. */
  stop?: string[];
};

/** A MESSAGE directive: one turn of example history. */
export interface ModelfileMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A parsed Modelfile; assignable as is to the store's `ModelCustomization`. */
export interface Modelfile extends ModelCustomization {
  /** FROM: a model reference (`hf.co/ORG/REPO:QUANT`, a custom name) or a `.gguf` path. */
  from: string;
  /** TEMPLATE: a Go text/template prompt template, already checked to parse. */
  template?: string;
  /** SYSTEM: the default system message. */
  system?: string;
  parameters: ModelfileParameters;
  /** MESSAGE directives, in order. */
  messages: ModelfileMessage[];
  /** LICENSE texts, joined with newlines when there are several. */
  license?: string;
}
