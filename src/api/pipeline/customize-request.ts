import type { ChatMessage, GenerateRequest } from '../../engine/index.js';
import { mergeParameters, renderPrompt } from '../../modelfile/index.js';
import type { OllamaParameters, PromptMessage } from '../../modelfile/index.js';
import type { ModelRecord } from '../../store/index.js';
import { omitUndefined } from './omit-undefined.js';
import { optionsToSampling } from './options-to-sampling.js';

/** Options of {@link customizeRequest}. */
export interface CustomizeRequestOptions {
  /** Epoch milliseconds now, for the templates' `currentDate`; default `Date.now`. */
  clock?: () => number;
  /**
   * The request's own Ollama `options`, laid over the PARAMETERs by name before either becomes a
   * sampling setting, so that a value meaning "no limit" (`num_predict: -1`) lifts the
   * Modelfile's limit instead of falling through to it.
   */
  options?: Readonly<Record<string, unknown>>;
}

/**
 * Applies a custom model's settings (made from a Modelfile) to a generate request, wherever it
 * runs (`/v1`, `/api`, the page's chat): PARAMETERs become sampling defaults that request fields
 * override; a chat is rendered through the TEMPLATE into a raw prompt, after the SYSTEM (unless
 * the chat has its own) and the MESSAGE history. A raw prompt is left as it came.
 */
export function customizeRequest(
  record: ModelRecord,
  request: GenerateRequest,
  options: CustomizeRequestOptions = {},
): GenerateRequest {
  const customization = record.customization;
  if (customization === undefined) return request;
  const parameters =
    options.options === undefined
      ? customization.parameters
      : mergeParameters(customization.parameters, options.options as OllamaParameters);
  const defaults = optionsToSampling(parameters);
  const customized: GenerateRequest = {
    ...request,
    sampling: { ...defaults.sampling, ...omitUndefined(request.sampling) },
  };
  const contextLength = request.contextLength ?? defaults.contextLength;
  if (contextLength !== undefined) customized.contextLength = contextLength;

  const { input } = request;
  if (input.kind !== 'chat') return customized;
  const hasImages = input.messages.some((m) => m.content.some((p) => p.type === 'image'));
  // The Go-template subset renders no tools, calls or tool answers: such chats keep the GGUF's own
  // template (whose tool-call parser reads the answer), with SYSTEM and MESSAGE applied below.
  const usesTools =
    (request.tools?.length ?? 0) > 0 ||
    input.messages.some((m) => m.role === 'tool' || (m.toolCalls?.length ?? 0) > 0);
  const { template } = customization;
  if (template !== undefined && !hasImages && !usesTools) {
    const clock = options.clock ?? Date.now;
    const prompt = renderPrompt(template, {
      messages: input.messages.map(toPromptMessage),
      history: customization.messages,
      now: () => new Date(clock()),
      ...(customization.system === undefined ? {} : { system: customization.system }),
    });
    customized.input = { kind: 'prompt', prompt };
    return customized;
  }
  // wllama's raw prompts cannot carry images (it places them only through the GGUF's own chat
  // template), so a chat with images or tools keeps that template: only SYSTEM and MESSAGE apply.
  customized.input = { kind: 'chat', messages: withHistory(input.messages, customization) };
  return customized;
}

/** The chat behind the Modelfile's SYSTEM (unless it has its own) and MESSAGE history. */
function withHistory(
  messages: readonly ChatMessage[],
  customization: NonNullable<ModelRecord['customization']>,
): ChatMessage[] {
  const text = (role: ChatMessage['role'], content: string): ChatMessage => ({
    role,
    content: [{ type: 'text', text: content }],
  });
  const history = customization.messages.map((m) => text(m.role, m.content));
  const [first, ...rest] = messages;
  // As in renderPrompt: a request's own system message stays first, before the history.
  if (first?.role === 'system') return [first, ...history, ...rest];
  const system = customization.system ?? '';
  // An empty SYSTEM clears the base model's system prompt, so it adds no message.
  const head = system === '' ? [] : [text('system', system)];
  return [...head, ...history, ...messages];
}

function toPromptMessage(message: ChatMessage): PromptMessage {
  const content = message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
  // Chats with tool messages never reach the Go template (see customizeRequest).
  return { role: message.role === 'tool' ? 'user' : message.role, content };
}
