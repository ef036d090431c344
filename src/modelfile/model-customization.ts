/** Settings of a custom model made from a Modelfile (issue 6); applied wherever it runs. */
export interface ModelCustomization {
  /** The model this one is made from. */
  from: string;
  /** Go text/template prompt template. */
  template?: string;
  system?: string;
  /** Default sampling parameters (Ollama names), overridden by request fields. */
  parameters: Record<string, number | string | string[]>;
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  license?: string;
}
