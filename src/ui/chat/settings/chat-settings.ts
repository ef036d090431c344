/** The Chat tab's per-conversation settings: system prompt, sampling, structured output and tools. */
export interface ChatSettings {
  /** Sent as the first (system) message when not empty. */
  systemPrompt: string;
  /** Randomness, 0 = greedy; default 1.0. */
  temperature: number;
  /** Most tokens in an answer; `null` (the default) leaves it to the engine. */
  maxTokens: number | null;
  /** Nucleus sampling mass, 0..1; default 1.0. */
  topP: number;
  /** Keep only the K most likely tokens, 0 = off; default 40. */
  topK: number;
  /** Penalty on repeated tokens, 1 = off; default 1.0. */
  repeatPenalty: number;
  /** Stop strings; the answer ends before the first one. Default none. */
  stop: string[];
  /** Sampling seed: the same seed, settings and conversation give the same answer; `null` (the default) draws a new one each time. */
  seed: number | null;
  /** Whether answers must be JSON valid against {@link jsonSchema}; default off. */
  structuredOutput: boolean;
  /** The JSON Schema as the person wrote it (kept while it is invalid); default a small example. */
  jsonSchema: string;
  /** Whether the functions in {@link tools} are offered to the model; default off. */
  toolsEnabled: boolean;
  /** A JSON list of function definitions, as the person wrote it; default an example. */
  tools: string;
  /** Whether the model may choose (`auto`, the default), must call a tool, or must not. */
  toolChoice: ToolChoiceSetting;
}

/** The `tool_choice` values the Chat tab offers. */
export type ToolChoiceSetting = 'auto' | 'required' | 'none';

/** The schema a new conversation's editor starts with (an example to edit, off until enabled). */
export const exampleJsonSchema = `{
  "type": "object",
  "properties": {
    "answer": { "type": "string" },
    "confidence": { "type": "integer", "minimum": 0, "maximum": 100 }
  },
  "required": ["answer", "confidence"],
  "additionalProperties": false
}`;

/** The tools a new conversation's editor starts with (an example to edit, off until enabled). */
export const exampleTools = `[
  {
    "type": "function",
    "function": {
      "name": "get_weather",
      "description": "The current weather in a city",
      "parameters": {
        "type": "object",
        "properties": { "city": { "type": "string" } },
        "required": ["city"]
      }
    }
  }
]`;

/** The defaults the settings sidebar's reset restores (LM Studio's and llama.cpp's). */
export const defaultChatSettings: Readonly<ChatSettings> = Object.freeze({
  systemPrompt: '',
  temperature: 1.0,
  maxTokens: null,
  topP: 1.0,
  topK: 40,
  repeatPenalty: 1.0,
  stop: [],
  seed: null,
  structuredOutput: false,
  jsonSchema: exampleJsonSchema,
  toolsEnabled: false,
  tools: exampleTools,
  toolChoice: 'auto',
});
