import { describe, expect, it } from 'vitest';
import { WordTexts } from './workload.js';

describe('WordTexts', () => {
  const words = [' bc', ' fg', ' kz', ' mp', ' vw'];

  it('builds texts of n words, each starting with a fresh word', () => {
    const texts = new WordTexts(words);
    const a = texts.text(4);
    const b = texts.text(4);
    expect(a.match(/ /g)).toHaveLength(4);
    expect(a.startsWith(' bc')).toBe(true);
    expect(b.startsWith(' fg')).toBe(true);
  });

  it('makes a chat whose cold first message differs only in its first word', () => {
    const chat = new WordTexts(words).chat(3, 4, 8);
    expect(chat.userMessages).toHaveLength(3);
    expect(chat.replyTokens).toBe(8);
    const [first] = chat.userMessages;
    expect(first!.slice(3)).toBe(chat.coldFirstMessage.slice(3));
    expect(first!.slice(0, 3)).not.toBe(chat.coldFirstMessage.slice(0, 3));
  });
});
