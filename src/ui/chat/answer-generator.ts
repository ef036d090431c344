import type { AnswerSoFar } from './apply-chat-chunk.js';
import { buildChatRequest, type ChatRequestBody } from './build-chat-request.js';
import { defaultChatSettings, type ChatSettings } from './settings/chat-settings.js';
import type { ChatTurn, Conversation } from './conversation.js';
import type { Conversations } from './conversations.js';
import type { ApiClient } from '../client/api-client.js';
import { failureText } from '../client/failure-text.js';
import { streamChatAnswer } from './stream-chat-answer.js';

/** What the generator asks of the Chat view that holds it. */
export interface AnswerGeneratorHost {
  /** The conversations, where turns are added and answers stream in. */
  readonly chats: Conversations;
  /** The page's API. */
  api(): ApiClient;
  /** The model chosen in the dropdown ('' when none). */
  model(): string;
  /** Whether an answer or a spoken conversation is in progress. */
  busy(): boolean;
  /** The answer being written now, by its turn id ('' once it is over). */
  streaming(turnId: string): void;
  /** A problem outside any answer (a request that cannot be built). */
  notice(message: string): void;
  /** A new turn was added: the view follows it to the bottom. */
  followNewTurn(): void;
  /** An answer ended: the view checks which models the engine holds now. */
  answered(): void;
}

/** The turn fields an answer so far fills (fresh objects, so the elements see the change). */
function answerFields(answer: AnswerSoFar): Pick<ChatTurn, 'content' | 'reasoning' | 'toolCalls'> {
  const calls = answer.toolCalls.filter((c) => c !== undefined).map((c) => ({ ...c }));
  return {
    content: answer.content,
    ...(answer.reasoning === '' ? {} : { reasoning: answer.reasoning }),
    ...(calls.length === 0 ? {} : { toolCalls: calls }),
  };
}

/** A conversation's title from the first line of its first message. */
function titleFrom(text: string): string {
  const line = text.split('\n')[0]!.trim();
  if (line === '') return 'Image';
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

/**
 * The Chat tab's typed turns: a message sent, an answer regenerated, tool results given back, each
 * followed by the next answer streamed from the page's own `/v1/chat/completions` into the
 * conversation (one render per frame), and stopped on request.
 */
export class AnswerGenerator {
  private controller: AbortController | undefined;

  constructor(private readonly host: AnswerGeneratorHost) {}

  /** Adds the person's message (with images and audio clips) and asks for the answer. */
  send(conversation: Conversation, text: string, images: string[], audio: string[]): void {
    if (!this.host.model() || this.host.busy()) return;
    const turn: ChatTurn = { id: crypto.randomUUID(), role: 'user', content: text };
    if (images.length > 0) turn.images = images;
    if (audio.length > 0) turn.audio = audio;
    const first = !conversation.renamed && conversation.turns.length === 0;
    this.host.followNewTurn();
    this.host.chats.patch(conversation.id, (c) => ({
      ...c,
      title: first ? titleFrom(text) : c.title,
      updatedAt: Date.now(),
      turns: [...c.turns, turn],
    }));
    void this.generate(conversation.id);
  }

  /** Replaces the last answer with a new one. */
  regenerate(conversation: Conversation): void {
    if (this.host.busy() || !this.host.model()) return;
    if (conversation.turns.at(-1)?.role !== 'assistant') return;
    this.host.chats.patch(conversation.id, (c) => ({ ...c, turns: c.turns.slice(0, -1) }), false);
    void this.generate(conversation.id);
  }

  /** Gives the last answer's calls their results (in order) and asks for the next answer. */
  sendToolResults(conversation: Conversation, results: string[]): void {
    const last = conversation.turns.at(-1);
    if (!last || this.host.busy() || !this.host.model()) return;
    let next = 0;
    const toolCalls = (last.toolCalls ?? []).map((c) =>
      c.result === undefined && next < results.length ? { ...c, result: results[next++] } : c,
    );
    this.host.followNewTurn();
    this.host.chats.patchTurn(conversation.id, last.id, { toolCalls }, true);
    void this.generate(conversation.id);
  }

  /** Stops the answer being written, keeping what it wrote. */
  stop(): void {
    this.controller?.abort();
  }

  /** Streams the next answer of a conversation from `/v1/chat/completions`. */
  private async generate(conversationId: string): Promise<void> {
    const { chats } = this.host;
    const conversation = chats.list.find((c) => c.id === conversationId);
    if (!conversation) return;
    const model = this.host.model();
    const settings: ChatSettings = { ...defaultChatSettings, ...conversation.settings };
    let body: ChatRequestBody;
    try {
      body = buildChatRequest(model, settings, conversation.turns);
    } catch (error) {
      this.host.notice(failureText(error));
      return;
    }
    const answer: ChatTurn = { id: crypto.randomUUID(), role: 'assistant', content: '', model };
    if (body.response_format !== undefined) answer.json = true;
    chats.append(conversationId, answer);
    this.host.streaming(answer.id);
    const controller = new AbortController();
    this.controller = controller;
    let frame = 0;
    const streamed = await streamChatAnswer(body, {
      api: this.host.api(),
      signal: controller.signal,
      onPiece: (so) => {
        // One render per frame however fast tokens come: the engine needs the CPU more.
        if (frame !== 0) return;
        frame = requestAnimationFrame(() => {
          frame = 0;
          chats.patchTurn(conversationId, answer.id, answerFields(so));
        });
      },
    });
    cancelAnimationFrame(frame);
    const { error, stats } = streamed;
    chats.patch(conversationId, (c) => ({
      ...c,
      updatedAt: Date.now(),
      turns: c.turns.map((t) =>
        t.id === answer.id
          ? {
              ...t,
              ...answerFields(streamed.answer),
              ...(stats ? { stats } : {}),
              ...(error === undefined ? {} : { error }),
            }
          : t,
      ),
    }));
    if (this.controller === controller) this.controller = undefined;
    this.host.streaming('');
    this.host.answered();
  }
}
