/**
 * A Prompt API prompt as `/v1/chat/completions` messages: the Prompt API's message shapes, the
 * chat message they become (text, images and audio the session declared), and the checks of a
 * session's creation options.
 */
import { audioPart, imagePart, MediaValueError, type MediaPart } from './media-values.js';
import { domError } from './prompt-api-error.js';

export type Role = 'system' | 'user' | 'assistant';

export interface MessageContent {
  type: 'text' | 'image' | 'audio' | 'tool-call' | 'tool-response';
  value: unknown;
}

/** One message of a prompt, as the Prompt API takes it. */
export interface LanguageModelMessage {
  role: Role;
  content: string | MessageContent[];
  prefix?: boolean;
}

export type LanguageModelPrompt = string | LanguageModelMessage[];

export interface Expected {
  type: MessageContent['type'];
  languages?: string[];
}

export interface LanguageModelCreateCoreOptions {
  topK?: number;
  temperature?: number;
  expectedInputs?: Expected[];
  expectedOutputs?: Expected[];
  tools?: unknown[];
}

/** One chat message as `/v1/chat/completions` takes it: text, or text and media parts. */
export interface ChatMessage {
  role: Role;
  content: string | ({ type: 'text'; text: string } | MediaPart)[];
}

/** The media a session was created to take (its `expectedInputs` besides text). */
export type MediaKind = 'image' | 'audio';

/**
 * A prompt's messages as chat messages: text, and the images and audio the session declared in
 * `expectedInputs` (others are a NotSupportedError, as in Chrome); tool turns are refused.
 */
export async function toMessages(
  input: LanguageModelPrompt,
  media: ReadonlySet<MediaKind>,
): Promise<ChatMessage[]> {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) return [{ role: 'user', content: String(input) }];
  return Promise.all(
    input.map(async (message): Promise<ChatMessage> => {
      if (message.prefix === true) {
        throw domError('NotSupportedError', "lmtab's LanguageModel does not continue a prefix yet");
      }
      if (typeof message.content === 'string') {
        return { role: message.role, content: message.content };
      }
      const parts = await Promise.all(message.content.map((part) => toPart(part, media)));
      if (parts.every((part) => part.type === 'text')) {
        return { role: message.role, content: parts.map((part) => part.text).join('') };
      }
      return { role: message.role, content: parts };
    }),
  );
}

async function toPart(
  part: MessageContent,
  media: ReadonlySet<MediaKind>,
): Promise<{ type: 'text'; text: string } | MediaPart> {
  if (part.type === 'text') return { type: 'text', text: String(part.value) };
  if (part.type !== 'image' && part.type !== 'audio') {
    throw domError(
      'NotSupportedError',
      `lmtab's LanguageModel does not run tools yet; received ${part.type}`,
    );
  }
  if (!media.has(part.type)) {
    throw domError(
      'NotSupportedError',
      `The session was not created for ${part.type} input: declare it in expectedInputs`,
    );
  }
  try {
    return await (part.type === 'image' ? imagePart(part.value) : audioPart(part.value));
  } catch (error) {
    if (error instanceof MediaValueError) throw domError(error.name, error.message);
    throw error;
  }
}

/** The media kinds `expectedInputs` declares. */
export function declaredMedia(options: LanguageModelCreateCoreOptions): Set<MediaKind> {
  return new Set(
    (options.expectedInputs ?? [])
      .map((expected) => expected.type)
      .filter((type): type is MediaKind => type === 'image' || type === 'audio'),
  );
}

export function checkOptions(options: LanguageModelCreateCoreOptions): void {
  const other = [
    ...(options.expectedInputs ?? []).filter(
      (expected) => !['text', 'image', 'audio'].includes(expected.type),
    ),
    ...(options.expectedOutputs ?? []).filter((expected) => expected.type !== 'text'),
  ][0];
  if (other) {
    throw domError(
      'NotSupportedError',
      `lmtab's LanguageModel takes text, images and audio and gives text; ${other.type} was asked`,
    );
  }
  if ((options.tools ?? []).length > 0) {
    throw domError('NotSupportedError', "lmtab's LanguageModel does not run tools yet");
  }
  if ((options.topK === undefined) !== (options.temperature === undefined)) {
    throw domError('NotSupportedError', 'topK and temperature must be given together');
  }
  if (options.topK !== undefined && !(options.topK >= 1)) {
    throw domError('NotSupportedError', `topK must be at least 1; received ${options.topK}`);
  }
}
