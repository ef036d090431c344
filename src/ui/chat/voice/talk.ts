import type { ChatTurn, Conversation } from '../conversation.js';
import type { Conversations } from '../conversations.js';
import { defaultChatSettings, type ChatSettings } from '../settings/chat-settings.js';
import { startVoiceSession, type VoiceSession } from './voice-session.js';

/** What a spoken conversation tells the Chat view beside the turns it writes. */
export interface TalkView {
  /** The answer now streaming ('' when none). */
  streaming(turnId: string): void;
  /** A problem to show, or '' to clear it (the microphone is live). */
  notice(message: string): void;
  /** The session ended. */
  closed(): void;
}

/**
 * Talk: a spoken conversation with `model` in `conversation`. Each turn the engine detects is added
 * with its audio and, once written down, its transcript; each answer streams in as typed answers
 * do, with its audio when the model speaks. Turns are saved as they complete.
 */
export function startTalk(
  chats: Conversations,
  conversation: Conversation,
  model: string,
  view: TalkView,
): VoiceSession {
  const id = conversation.id;
  const settings: ChatSettings = { ...defaultChatSettings, ...conversation.settings };
  const answers = new Map<string, string>();
  const appendText = (turnId: string, delta: string) =>
    chats.patch(
      id,
      (c) => ({
        ...c,
        turns: c.turns.map((t) => (t.id === turnId ? { ...t, content: t.content + delta } : t)),
      }),
      false,
    );
  return startVoiceSession(
    {
      model,
      instructions: settings.systemPrompt,
      history: conversation.turns
        .filter((t) => t.error === undefined && t.content !== '')
        .map((t) => ({ role: t.role, text: t.content })),
      ...(settings.maxTokens === null ? {} : { maxTokens: settings.maxTokens }),
    },
    {
      onListening: () => view.notice(''),
      onTurn: (itemId, wav) => {
        const turn: ChatTurn = { id: itemId, role: 'user', content: '', audio: [wav] };
        chats.patch(id, (c) => ({ ...c, updatedAt: Date.now(), turns: [...c.turns, turn] }));
      },
      onTranscript: (itemId, text) => chats.patchTurn(id, itemId, { content: text }, true),
      onAnswerStart: (responseId) => {
        const answer: ChatTurn = { id: crypto.randomUUID(), role: 'assistant', content: '', model };
        answers.set(responseId, answer.id);
        chats.append(id, answer);
        view.streaming(answer.id);
      },
      onAnswerText: (responseId, delta) => {
        const turnId = answers.get(responseId);
        if (turnId !== undefined) appendText(turnId, delta);
      },
      onAnswerAudio: (responseId, wav) => {
        const turnId = answers.get(responseId);
        if (turnId !== undefined) chats.patchTurn(id, turnId, { audio: [wav] }, true);
      },
      onAnswerDone: (responseId, status) => {
        const turnId = answers.get(responseId);
        view.streaming('');
        if (turnId === undefined) return;
        const failed = { error: 'The answer failed: see the notice above.' };
        chats.patchTurn(id, turnId, status === 'failed' ? failed : {}, true);
      },
      onError: (message) => view.notice(message),
      onClosed: () => view.closed(),
    },
  );
}
