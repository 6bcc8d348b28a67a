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

  /** The body kept under `key`, or `render`'s as JSON, kept when there is a key. */
  body(key: string | undefined, render: () => unknown): Buffer {
    const kept = key === undefined ? undefined : this.bodies?.get(key);
    if (kept) return kept;
    const body = Buffer.from(stringifySharing(render()));
    if (key !== undefined) this.bodies?.set(key, body);
    return body;
  }
}

/**
 * JSON.stringify's text of `value`, where a list the top-level object holds under two keys (search's `data` and
 * `entities`) is serialised once and written twice: the page is most of the answer.
 */
export function stringifySharing(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || 'toJSON' in value) return JSON.stringify(value);
  const lists = new Map<unknown, string>();
  const members: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    let text = Array.isArray(member) ? lists.get(member) : undefined;
    if (text === undefined) {
      text = JSON.stringify(member);
      if (Array.isArray(member)) lists.set(member, text);
    }
    members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}
