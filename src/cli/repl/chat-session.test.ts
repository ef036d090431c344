import { describe, expect, it } from 'vitest';
import { createChatSession } from './chat-session.js';
import type { ChatChunk, RelayClient } from '../relay-client.js';

type ChatBody = Parameters<RelayClient['chat']>[0];

/** A relay client whose chat answers the given lines and records each request body. */
function fakeClient(lines: ChatChunk[]) {
  const bodies: ChatBody[] = [];
  const client = {
    chat(body: ChatBody) {
      bodies.push(body);
      return (async function* () {
        yield* lines;
      })();
    },
  } as unknown as RelayClient;
  return { client, bodies };
}

function output(isTTY: boolean) {
  const out = { text: '', isTTY, write: (t: string) => (out.text += t) };
  return out;
}

const thinkingAnswer: ChatChunk[] = [
  { message: { role: 'assistant', content: '', thinking: 'Two and ' }, done: false },
  { message: { role: 'assistant', content: '', thinking: 'two.' }, done: false },
  { message: { role: 'assistant', content: '{"sum": 4}' }, done: false },
  { message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' },
];

describe('createChatSession', () => {
  it('sends the format and think settings, and /set format changes them', async () => {
    const { client, bodies } = fakeClient([{ done: true }]);
    const session = createChatSession({
      client,
      model: 'm',
      stdout: output(false),
      stderr: output(false),
      format: 'json',
      think: false,
    });
    await session.send('Add 2 and 2');
    session.setFormat({ type: 'object' });
    session.setThink(true);
    await session.send('Again');
    session.setFormat(undefined);
    await session.send('Free text');
    expect(bodies.map((b) => [b.format, b.think])).toEqual([
      ['json', false],
      [{ type: 'object' }, true],
      [undefined, true],
    ]);
  });

  it('shows thinking dimmed before the answer on a terminal, and keeps it out of the history', async () => {
    const { client, bodies } = fakeClient(thinkingAnswer);
    const stdout = output(true);
    const session = createChatSession({ client, model: 'm', stdout, stderr: output(true) });
    await session.send('Add 2 and 2');
    expect(stdout.text).toBe(
      '\x1b[2mThinking...\nTwo and two.\n...done thinking.\x1b[22m\n\n{"sum": 4}\n',
    );
    await session.send('Thanks');
    expect(bodies[1]?.messages.at(-2)).toEqual({ role: 'assistant', content: '{"sum": 4}' });
  });

  it('leaves thinking out of piped output unless --think asked for it, or --hidethinking hides it', async () => {
    const piped = output(false);
    await createChatSession({
      client: fakeClient(thinkingAnswer).client,
      model: 'm',
      stdout: piped,
      stderr: output(false),
    }).send('Add');
    expect(piped.text).toBe('{"sum": 4}\n');

    const asked = output(false);
    await createChatSession({
      client: fakeClient(thinkingAnswer).client,
      model: 'm',
      stdout: asked,
      stderr: output(false),
      think: true,
    }).send('Add');
    expect(asked.text).toBe('Thinking...\nTwo and two.\n...done thinking.\n\n{"sum": 4}\n');

    const hidden = output(true);
    await createChatSession({
      client: fakeClient(thinkingAnswer).client,
      model: 'm',
      stdout: hidden,
      stderr: output(true),
      think: true,
      hideThinking: true,
    }).send('Add');
    expect(hidden.text).toBe('{"sum": 4}\n');
  });
});
