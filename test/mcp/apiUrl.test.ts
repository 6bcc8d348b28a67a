// The MCP server's LORE_API_URL as users write it: the gateway's root, or its REST base (…/api/v1, an easy mistake
// since the REST docs start there) or its GraphQL endpoint, with or without a trailing slash, all reach the gateway.
// A URL that is no Lore gateway at all is one clear tool error, not a schema error on stderr.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saltmarshBundle } from '../support/fixtures.ts';
import { importBundle, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { callTool, connectMcp, expectToolError, expectToolListing, textOf } from './harness.ts';

let gw: TestGateway;
let key: string;
let projectId: string;

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.createKey('pro'));
  ({ projectId } = await importBundle(gw, key, saltmarshBundle()));
});
afterAll(() => gw?.close());

describe('LORE_API_URL', () => {
  it('when it is the REST base or the GraphQL endpoint rather than the root, then the tools answer as with the root, and the listing is honest', async () => {
    for (const url of [`${gw.url}/api/v1`, `${gw.url}/api/v1/`, `${gw.url}/graphql`]) {
      const session = await connectMcp({ LORE_API_URL: url, LORE_API_KEY: key, LORE_PROJECT_ID: projectId });
      try {
        const result = await callTool(session, 'lore_author_recall', { limit: 1 });
        expect(result.isError, `${url}: ${textOf(result)}`).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ projectId });
        if (url.endsWith('/api/v1')) await expectToolListing(session);
        expect(session.stderr()).not.toMatch(/ZodError|internal_error/);
      } finally {
        await session.close();
      }
    }
  });

  it('when it points at something that is not a Lore gateway, then a tool call says so in one error', async () => {
    const session = await connectMcp({ LORE_API_URL: `${gw.url}/elsewhere`, LORE_API_KEY: key, LORE_PROJECT_ID: projectId });
    try {
      const text = expectToolError(await callTool(session, 'lore_author_recall', {}), 'internal_error', 404);
      expect(text).toMatch(/without a GraphQL response; is LORE_API_URL a Lore gateway\?/);
      expect(session.stderr()).not.toMatch(/ZodError/);
    } finally {
      await session.close();
    }
  });
});
