// What each problem `type` (/errors/<slug>) means and what to do about it, for the pages those URIs open.
// Typed by the catalog's codes, so a new code without its explanation fails the type check.
import type { ErrorCode } from '../../src/core/errors.ts';

export type ErrorExplanation = { meaning: string; action: string };

export const errorGuide: Record<ErrorCode, ErrorExplanation> = {
  AUTH_MISSING_KEY: {
    meaning: 'The request carried no API key.',
    action: 'Send your key as `Authorization: Bearer sk_lore_…`. An operator makes keys with `npx lore keys create --tier <tier>`; the secret is shown once.',
  },
  AUTH_INVALID_KEY: {
    meaning: 'The key sent is not a key Lore knows: mistyped, malformed, revoked, or replaced by `lore keys rotate`.',
    action: 'Check the whole `sk_lore_…` secret was sent (40 characters after the prefix). A rotated or revoked key stops at once: use the new secret, or ask the operator for a key.',
  },
  AUTH_EXPIRED_KEY: {
    meaning: 'The key is past the expiry date it was created with.',
    action: 'Ask the operator for a new key (`lore keys create`, or `lore keys rotate` to keep the same account and projects).',
  },
  insufficient_scope: {
    meaning: "The key's tier does not include the scope this operation needs (for example `check`, `projects:write` or `audit:read`).",
    action: 'Use a key of a tier that has the scope; `GET /api/v1/openapi.json` names the scope of each operation, and the tiers are listed in the REST documentation.',
  },
  quota_exceeded: {
    meaning: "The key's quota for the period (the day or the month, UTC) is used up. Failed requests and idempotent replays cost nothing.",
    action: 'Do not retry before the reset: `GET /api/v1/usage` (free, never refused) says what is left and when the period ends. A higher tier has a larger quota.',
  },
  precondition_required: {
    meaning: 'This operation runs your own LLM provider (the conflict check, the timeline, extraction), and the request did not name one.',
    action: 'Send `X-LLM-Provider` (`anthropic`, `openai` or `openai-compatible`), `X-LLM-Key` and optionally `X-LLM-Model`. The provider key is used for that one call, never stored or logged.',
  },
  rate_limited: {
    meaning: 'The key sent more requests this minute than its tier allows.',
    action: 'Wait the number of seconds in `Retry-After` (also `retry_after` in the body). Every answer carries `RateLimit` and `RateLimit-Policy` headers, so a client can pace itself before it gets here.',
  },
  not_found: {
    meaning: 'Nothing is at this path, or the project, entity or other item named does not exist for this key. Another account\'s data answers exactly like missing data.',
    action: 'Check the path and the ids (a project id is `prj_…`); `GET /api/v1/projects` lists the projects your key can see.',
  },
  validation_error: {
    meaning: 'The request was understood but a value in it is not acceptable: a missing or wrong-typed field, a number out of range, a value that is not valid text, or a GraphQL document that does not validate. Nothing was changed.',
    action: 'Read `errors` in the body: each entry names the field (its path) and what is wrong with it. Fix those and send again.',
  },
  invalid_cursor: {
    meaning: '`starting_after` is not an item of this list: deleted since, or taken from another list.',
    action: 'Start again from the first page (leave `starting_after` out), then follow `next_starting_after` from each page.',
  },
  malformed_json: {
    meaning: 'The body is not valid JSON.',
    action: 'Send a JSON document with `Content-Type: application/json`; the `detail` says where parsing stopped.',
  },
  invalid_bundle: {
    meaning: 'The canon bundle was refused whole: an entity, fact, chapter or reference in it is wrong. Nothing was written.',
    action: 'Each error names its path in the bundle (`entities.3.type: …`); fix them and import again. The bundle format is described in docs/bundles.md in the repository.',
  },
  unsupported_media_type: {
    meaning: 'The body is not JSON: this endpoint reads `application/json` only.',
    action: 'Send the body as JSON with `Content-Type: application/json`.',
  },
  payload_too_large: {
    meaning: 'The body is larger than this gateway accepts (`LORE_MAX_BODY_BYTES` for REST, 25 MB for GraphQL).',
    action: 'Send less at once (GraphQL `importBundle` and `importManuscript` take up to 25 MB, room for a whole manuscript), or ask the operator to raise `LORE_MAX_BODY_BYTES`.',
  },
  method_not_allowed: {
    meaning: 'The path exists but not with this HTTP method.',
    action: 'Use one of the methods in the `Allow` header.',
  },
  name_taken: {
    meaning: 'The name, alias or key is already used in this project (or, for a project, in this account), ignoring case. Nothing was written.',
    action: 'The `detail` names the field and the holder: choose another name, or change the existing item instead.',
  },
  already_exists: {
    meaning: 'The same item is already there: the same live fact on this entity, or the same relationship (from, to, kind).',
    action: 'Nothing to do if that is what you meant; otherwise change the existing item.',
  },
  version_conflict: {
    meaning: 'Someone changed this item since you read it (`expected_version` is behind), or the fact was already retired by a retcon. Nothing was written.',
    action: 'Read the item again, apply your change to the current version and send it with the new `expected_version`.',
  },
  in_use: {
    meaning: 'Other canon still depends on this: a chapter where live facts or state values start or end, or a move that would end a fact before it begins. Nothing was changed.',
    action: 'The `detail` lists what depends on it: retcon or retire those facts first, then try again.',
  },
  already_decided: {
    meaning: 'This proposal in the review queue was already approved or rejected; each is decided once.',
    action: 'Nothing to do; `GET …/candidates?status=approved` or `status=rejected` shows the decision.',
  },
  idempotency_key_reused: {
    meaning: 'This `Idempotency-Key` was used in the last 24 hours with a different request body.',
    action: 'Use a new key for a new request; repeat a key only to retry exactly the same request.',
  },
  idempotency_key_in_progress: {
    meaning: 'The first request with this `Idempotency-Key` is still running (after 15 s of waiting), or failed while this one waited.',
    action: 'Retry the same request with the same key a little later: it then replays the first answer, or runs if the first failed.',
  },
  unknown_provider: {
    meaning: '`X-LLM-Provider` names a provider this gateway does not offer.',
    action: 'Send `anthropic`, `openai` or `openai-compatible` (the last only when the operator configured its base URL).',
  },
  llm_provider_error: {
    meaning: 'Your LLM provider refused the call or failed (a rejected key, no credit, an overloaded model), or twice answered something that is not the expected JSON. It cost no quota.',
    action: "The `detail` carries the provider's HTTP status and message: check the key and model you sent, then retry.",
  },
  llm_timeout: {
    meaning: 'Your LLM provider did not answer in time (`LORE_LLM_TIMEOUT_MS`). It cost no quota.',
    action: 'Retry later, with a shorter passage, or a faster model (`X-LLM-Model`).',
  },
  graph_unavailable: {
    meaning: 'The relationship graph store (Neo4j) could not be reached.',
    action: 'Retry shortly. An operator should check `GET /health` and the Neo4j server; the canon itself is in PostgreSQL and is safe.',
  },
  store_unavailable: {
    meaning: 'The store (PostgreSQL, or the embedded store) could not be reached; the request was not run, or its outcome is unknown if the gateway stopped during it.',
    action: 'Wait the `Retry-After` seconds and send it again. An operator should check `GET /health` and the database; the gateway reconnects by itself.',
  },
  feature_disabled: {
    meaning: 'The REST API is switched off in this deployment (`TRACK_2_API_ENABLED=false`).',
    action: 'Use GraphQL at `/graphql`, or ask the operator to switch the REST API on.',
  },
  internal_error: {
    meaning: 'Something went wrong inside Lore. It is logged with the request id; nothing you sent caused it.',
    action: 'Retry; if it persists, report it quoting the `request_id` of the answer (also in its `X-Request-Id` header).',
  },
};
