// Bodies of REST answers as the bytes sent, kept per canon version (the executor reports the version a recall or
// search answer was read at): while the canon is unchanged, the same request is answered without rewriting and
// serialising the page again, which costs more CPU than the rest of the request on a page of 20 entities.
import { LRUCache } from 'lru-cache';

export class AnswerCache {
  private readonly bodies?: LRUCache<string, Buffer>;

  /** `megabytes`: the budget, in bytes of the bodies; 0: off */
  constructor(megabytes: number) {
    this.bodies = megabytes > 0 ? new LRUCache({ maxSize: megabytes * 1024 * 1024, sizeCalculation: (body, key) => body.length + key.length }) : undefined;
  }

  get(key: string): Buffer | undefined {
    return this.bodies?.get(key);
  }

  /** The body kept under `key`, or `render`'s, kept when there is a key. */
  body(key: string | undefined, render: () => Buffer): Buffer {
    const kept = key === undefined ? undefined : this.bodies?.get(key);
    if (kept) return kept;
    const body = render();
    if (key !== undefined) this.bodies?.set(key, body);
    return body;
  }
}

const comma = Buffer.from(',');
const open = Buffer.from('[');
const close = Buffer.from(']');

/**
 * JSON.stringify's text of `value` as UTF-8, where a list the top-level object holds under two keys (search's `data`
 * and `entities`) is serialised and encoded once and written twice: the page is most of the answer. `spliced`: a list
 * given as its items' JSON (each as JSON.stringify writes it) wherever the object holds that list.
 */
export function serializeSharing(value: unknown, spliced?: { list: unknown[]; items: readonly Buffer[] }): Buffer {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || 'toJSON' in value) return Buffer.from(JSON.stringify(value));
  const lists = new Map<unknown, Buffer[]>();
  if (spliced) lists.set(spliced.list, [open, ...spliced.items.flatMap((item, i) => (i === 0 ? [item] : [comma, item])), close]);
  const parts: Buffer[] = [];
  let text = '{';
  let first = true;
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (!Array.isArray(member)) {
      text += JSON.stringify(member);
      continue;
    }
    let encoded = lists.get(member);
    if (!encoded) lists.set(member, (encoded = [Buffer.from(JSON.stringify(member))]));
    parts.push(Buffer.from(text), ...encoded);
    text = '';
  }
  parts.push(Buffer.from(`${text}}`));
  return Buffer.concat(parts);
}
