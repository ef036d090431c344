import { LmtabError } from '../../errors/index.js';
import { newId } from '../encoders/new-id.js';
import type { StoredItem } from './conversation-messages.js';
import type { RealtimeItem, ServerEvent } from './realtime-answer.js';
import { decodePcm16, encodePcm16 } from './realtime-audio.js';
import type { ClientItem } from './realtime-events.js';

/**
 * A Realtime session's conversation: its items in order, each with the audio its parts carried
 * (decoded once, left out of what is echoed), and the `conversation.item.*` events their changes
 * send.
 */
export class ConversationItems {
  readonly #items: StoredItem[] = [];
  readonly #emit: (event: ServerEvent) => void;

  constructor(emit: (event: ServerEvent) => void) {
    this.#emit = emit;
  }

  /** Every item, in order. */
  get all(): readonly StoredItem[] {
    return this.#items;
  }

  /** The id of the last item, or null in an empty conversation. */
  get lastId(): string | null {
    return this.#items.at(-1)?.item.id ?? null;
  }

  /** The item of `id`; a 400 naming `param` when the conversation has none. */
  get(id: string, param: string): StoredItem {
    return this.#items[this.#indexOf(id, param)]!;
  }

  /** A client's `conversation.item.create`: after `previous`, or last. */
  addClientItem(item: ClientItem, previous: string | undefined): void {
    const id = item.id ?? newId('item_');
    if (this.#items.some((s) => s.item.id === id)) {
      throw new LmtabError(
        'invalid_request',
        `item.id: the conversation already has an item "${id}".`,
        { param: 'item.id' },
      );
    }
    this.insert(storedItem({ ...item, id }), previous ?? this.lastId ?? undefined);
  }

  /** Puts an item after `previous` (last without one) and says so. */
  insert(stored: StoredItem, previous: string | undefined): void {
    const at =
      previous === undefined ? this.#items.length : this.#indexOf(previous, 'previous_item_id') + 1;
    const before = at === 0 ? null : this.#items[at - 1]!.item.id;
    this.#items.splice(at, 0, stored);
    this.#emit({ type: 'conversation.item.added', previous_item_id: before, item: stored.item });
    this.#emit({ type: 'conversation.item.done', previous_item_id: before, item: stored.item });
  }

  /** An answer's item as it starts: added last (its `done` comes when the answer ends it). */
  addAnswerItem(item: RealtimeItem): void {
    const previous = this.lastId;
    this.#items.push({ item, audio: new Map() });
    this.#emit({ type: 'conversation.item.added', previous_item_id: previous, item });
  }

  /** A client's `conversation.item.delete`. */
  delete(id: string): void {
    this.#items.splice(this.#indexOf(id, 'item_id'), 1);
    this.#emit({ type: 'conversation.item.deleted', item_id: id });
  }

  #indexOf(id: string, param: string): number {
    const at = this.#items.findIndex((s) => s.item.id === id);
    if (at < 0) {
      throw new LmtabError(
        'invalid_request',
        `${param}: expected the id of an item in the conversation, received "${id}" (it has ${this.#items.length} items).`,
        { param },
      );
    }
    return at;
  }
}

/** A client item as stored: audio parts decoded, their bytes left out of what is echoed. */
export function storedItem(item: ClientItem & { id: string }): StoredItem {
  const audio = new Map<number, Int16Array>();
  const echoed: RealtimeItem = {
    ...item,
    object: 'realtime.item',
    status: 'completed',
  };
  if (item.type === 'message' && item.role === 'user') {
    echoed.content = item.content.map((part, i) => {
      if (part.type !== 'input_audio') return part;
      if (part.audio === undefined) {
        throw new LmtabError(
          'invalid_request',
          `item.content[${i}].audio: expected base64 16-bit PCM at 24 kHz, received none.`,
          { param: `item.content[${i}].audio` },
        );
      }
      audio.set(i, decodePcm16(part.audio, `item.content[${i}].audio`));
      return { type: 'input_audio', transcript: part.transcript ?? null };
    });
  }
  return { item: echoed, audio };
}

/** A stored item as `conversation.item.retrieved` gives it: its audio parts with their audio. */
export function withAudio(stored: StoredItem): Record<string, unknown> {
  if (stored.audio.size === 0) return stored.item;
  const content = (stored.item.content as Record<string, unknown>[]).map((part, i) => {
    const samples = stored.audio.get(i);
    return samples === undefined ? part : { ...part, audio: encodePcm16(samples) };
  });
  return { ...stored.item, content };
}
