import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';

declare global {
  interface Window {
    OpenAI: typeof OpenAI;
    openai: OpenAI;
    anthropic: Anthropic;
  }
}
