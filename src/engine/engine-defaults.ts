/**
 * The engine's defaults, in one place: the engines read them when an option is absent, and the
 * options' JSDoc and `docs/engine.md` name them. The relay's own limits live in
 * `src/relay/relay-defaults.ts`.
 */
export const engineDefaults = {
  /** Milliseconds an idle model stays loaded (Ollama's `keep_alive` default, 5 minutes). */
  keepAliveMs: 5 * 60_000,
  /** Requests a chat model decodes together in one batch (llama-server's `n_parallel`). */
  parallelSlots: 4,
  /** A chat model's context in tokens, shared by its slots, when the settings name none. */
  contextLength: 4096,
  /** Inputs an embedding model encodes together in one batch. */
  embeddingSlots: 16,
  /** An embedding model's context in tokens when a request names none and the GGUF has none. */
  embeddingContextLength: 2048,
} as const;
