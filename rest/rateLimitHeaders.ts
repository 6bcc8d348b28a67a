// The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers: RateLimit-Policy and RateLimit, structured
// fields serialised with a library made for them), so a client can pace itself without asking GET /usage.
import type { ServerResponse } from 'node:http';
import { serializeList } from 'structured-headers';
import type { RateLimitState } from '../src/core/metering/metering.ts';

const policy = 'minute';

export function setRateLimitHeaders(res: ServerResponse, state: RateLimitState): void {
  if (res.headersSent) return;
  res.setHeader('RateLimit-Policy', serializeList([[policy, new Map([['q', state.limit], ['w', 60]])]]));
  res.setHeader('RateLimit', serializeList([[policy, new Map([['r', state.remaining], ['t', state.resetSeconds]])]]));
}
