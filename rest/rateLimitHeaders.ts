// The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy and RateLimit, structured
// fields serialised with a library made for them), so a client can pace itself without asking GET /usage.
import type { ServerResponse } from 'node:http';
import { serializeBareItem, serializeList } from 'structured-headers';
import type { RateLimitState } from '../src/core/metering/metering.ts';

const policy = 'minute';

// Every answer carries both fields: built through the library on each one, they were a twentieth of a cached recall's
// CPU. The policy field is serialised once per limit (a key's limit is one of a few); the state field is the item the
// library serialises once, followed by its two integer parameters, written as the library writes an sf-integer.
const policyFields = new Map<number, string>();
const stateItem = serializeList([[policy, new Map()]]);
const maxInteger = 999_999_999_999_999;
// Anything but an integer in range goes through the library, which serialises it or throws as it always did.
const integer = (n: number) => (Number.isInteger(n) && n >= -maxInteger && n <= maxInteger ? String(n) : serializeBareItem(n));

export function setRateLimitHeaders(res: ServerResponse, state: RateLimitState): void {
  if (res.headersSent) return;
  let policyField = policyFields.get(state.limit);
  if (policyField === undefined) {
    policyField = serializeList([[policy, new Map([['q', state.limit], ['w', 60]])]]);
    // Bounded: past a few hundred distinct limits, which no deployment has, the field is serialised each time.
    if (policyFields.size < 1024) policyFields.set(state.limit, policyField);
  }
  res.setHeader('RateLimit-Policy', policyField);
  res.setHeader('RateLimit', `${stateItem};r=${integer(state.remaining)};t=${integer(state.resetSeconds)}`);
}
