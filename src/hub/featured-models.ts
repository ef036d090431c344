/**
 * What a featured model does, shown as badges on its card. `rerank`: a reranker (pooling `rank`),
 * which scores documents for `/v1/rerank` and does not chat. `audio`: it hears (an audio
 * projector comes along): `/v1/audio/transcriptions` and `input_audio` in chats.
 */
export type FeaturedCapability =
  'text' | 'vision' | 'audio' | 'moe' | 'thinking' | 'tools' | 'rerank';

/** One pick of Discover's featured section. */
export interface FeaturedModel {
  /** Repository id `ORG/REPO` on the hub. */
  repo: string;
  /** Short name on the card. */
  name: string;
  /** One line saying what it is good for. */
  summary: string;
  capabilities: FeaturedCapability[];
  /** Parameter count (all experts, for a mixture of experts). */
  parameters: number;
  /** Parameters active per token, for a mixture of experts. */
  activeParameters?: number;
  /**
   * The level Discover downloads when the hub cannot be asked; with the hub reachable the listing
   * decides (Q4_K_M, else the nearest level the repository has).
   */
  quantization: string;
  /**
   * Bytes of that download (model and projector), shown while the hub's listing is not in; the
   * listing's sizes replace it.
   */
  sizeBytes: number;
}

/**
 * LiquidAI's LFM2, LFM2.5 and LFM3 GGUF repositories, smallest first within each group, its audio
 * model (the model and its audio projector; the speaking side is not served yet), then a
 * reranker for `/v1/rerank` (LiquidAI publishes none in GGUF: Jina's multilingual reranker, as
 * GPUStack converted it for llama.cpp, a file llama-server's documentation and users run with
 * `--reranking`). To add a model, add a line: the card, fit check and download follow from it.
 *
 * Written from memory of the hub (it cannot be reached from the machine this was written on):
 * the repository names follow LiquidAI's `<MODEL>-GGUF` pattern and are believed exact; the sizes
 * are approximate (to about 10 percent), and the vision repositories may offer Q4_0 rather than
 * Q4_K_M. Both are only fallbacks: at runtime the hub's file listing gives the real files and sizes.
 * LFM2.5-VL-1.6B and the LFM3 entries (named as LiquidAI announced them: LFM3-1.7B, LFM3-VL-2B)
 * are the least certain; if the hub answers 404 a card says so.
 */
export const featuredModels: readonly FeaturedModel[] = [
  {
    repo: 'LiquidAI/LFM2-350M-GGUF',
    name: 'LFM2 350M',
    summary: 'The smallest LFM2: quick answers on any device.',
    capabilities: ['text', 'tools'],
    parameters: 354e6,
    quantization: 'Q4_K_M',
    sizeBytes: 229e6,
  },
  {
    repo: 'LiquidAI/LFM2-700M-GGUF',
    name: 'LFM2 700M',
    summary: 'Small and fast, better at following instructions.',
    capabilities: ['text', 'tools'],
    parameters: 742e6,
    quantization: 'Q4_K_M',
    sizeBytes: 469e6,
  },
  {
    repo: 'LiquidAI/LFM2-1.2B-GGUF',
    name: 'LFM2 1.2B',
    summary: 'The all-rounder: chat, extraction, tool calls.',
    capabilities: ['text', 'tools'],
    parameters: 1.17e9,
    quantization: 'Q4_K_M',
    sizeBytes: 731e6,
  },
  {
    repo: 'LiquidAI/LFM2-2.6B-GGUF',
    name: 'LFM2 2.6B',
    summary: 'The largest dense LFM2: the best answers of the family.',
    capabilities: ['text', 'tools'],
    parameters: 2.57e9,
    quantization: 'Q4_K_M',
    sizeBytes: 1.56e9,
  },
  {
    repo: 'LiquidAI/LFM2-8B-A1B-GGUF',
    name: 'LFM2 8B-A1B',
    summary: 'Mixture of experts: 8B of knowledge at the speed of about 1.5B.',
    capabilities: ['text', 'moe', 'tools'],
    parameters: 8.3e9,
    activeParameters: 1.5e9,
    quantization: 'Q4_K_M',
    sizeBytes: 5.04e9,
  },
  {
    repo: 'LiquidAI/LFM2-VL-450M-GGUF',
    name: 'LFM2-VL 450M',
    summary: 'Reads images: describe a photo, read a chart.',
    capabilities: ['text', 'vision'],
    parameters: 450e6,
    quantization: 'Q4_0',
    sizeBytes: 420e6,
  },
  {
    repo: 'LiquidAI/LFM2-VL-1.6B-GGUF',
    name: 'LFM2-VL 1.6B',
    summary: 'The larger vision model: more detail in what it sees.',
    capabilities: ['text', 'vision'],
    parameters: 1.58e9,
    quantization: 'Q4_0',
    sizeBytes: 1.5e9,
  },
  {
    repo: 'LiquidAI/LFM2.5-1.2B-Instruct-GGUF',
    name: 'LFM2.5 1.2B Instruct',
    summary: 'The newer 1.2B: trained longer, better at chat and tools.',
    capabilities: ['text', 'tools'],
    parameters: 1.17e9,
    quantization: 'Q4_K_M',
    sizeBytes: 731e6,
  },
  {
    repo: 'LiquidAI/LFM2.5-1.2B-Thinking-GGUF',
    name: 'LFM2.5 1.2B Thinking',
    summary: 'Thinks step by step before it answers: maths, logic, planning.',
    capabilities: ['text', 'thinking', 'tools'],
    parameters: 1.17e9,
    quantization: 'Q4_K_M',
    sizeBytes: 731e6,
  },
  {
    repo: 'LiquidAI/LFM2.5-VL-1.6B-GGUF',
    name: 'LFM2.5-VL 1.6B',
    summary: 'The newer vision model.',
    capabilities: ['text', 'vision'],
    parameters: 1.6e9,
    quantization: 'Q4_0',
    sizeBytes: 1.5e9,
  },
  {
    repo: 'LiquidAI/LFM3-1.7B-GGUF',
    name: 'LFM3 1.7B',
    summary: 'The newest generation: gated attention over a sliding window, for chat and tools.',
    capabilities: ['text', 'tools'],
    parameters: 1.7e9,
    quantization: 'Q4_K_M',
    sizeBytes: 1.1e9,
  },
  {
    repo: 'LiquidAI/LFM3-VL-2B-GGUF',
    name: 'LFM3-VL 2B',
    summary: 'LFM3 with eyes: a hybrid convolution and attention image encoder.',
    capabilities: ['text', 'vision'],
    parameters: 2e9,
    quantization: 'Q4_K_M',
    sizeBytes: 1.5e9,
  },
  {
    repo: 'LiquidAI/LFM2.5-Audio-1.5B-GGUF',
    name: 'LFM2.5-Audio 1.5B',
    summary: 'Hears speech: transcribes it and answers questions about it.',
    capabilities: ['text', 'audio'],
    parameters: 1.5e9,
    quantization: 'Q4_K_M',
    sizeBytes: 1.3e9,
  },
  {
    repo: 'gpustack/jina-reranker-v2-base-multilingual-GGUF',
    name: 'Jina Reranker v2',
    summary:
      'Ranks documents by relevance to a query, in 100 languages: search and RAG through /v1/rerank.',
    capabilities: ['rerank'],
    parameters: 278e6,
    quantization: 'Q8_0',
    sizeBytes: 2.9e8,
  },
];
