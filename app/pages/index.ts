// The pages a newcomer opens besides the API: the API reference (/docs), the error pages (/errors), GraphiQL's files.
import type express from 'express';
import type { Config } from '../../src/config.ts';
import { apiDocs } from './apiDocs.ts';
import { errorPages } from './errorPages.ts';
import { graphiqlAssets, graphiqlPagePolicy } from './graphiql.ts';

export { graphiqlOptions, renderGraphiQLPage } from './graphiql.ts';
export { setSecurityHeaders } from './securityHeaders.ts';

/** Mounted before /graphql, whose handler would take /graphql/assets for itself. */
export function mountPages(app: express.Express, config: Config): void {
  app.use(apiDocs());
  app.use(errorPages(config.siteUrl));
  if (config.graphiql) {
    app.use(graphiqlAssets(config.siteUrl));
    app.get('/graphql', graphiqlPagePolicy());
  }
}
