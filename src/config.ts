// The one place that reads process.env: validated once, failing fast with one clear line.
import path from 'node:path';
import { z } from 'zod';

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .optional(),
  LORE_DATA_DIR: z.string().min(1).default('.lore'),
  LORE_SITE_URL: z.url().optional(),
  LORE_DOCS_URL: z.url().optional(),
  TRACK_2_API_ENABLED: flag.default(true),
  LORE_GRAPHIQL: flag.optional(),
  LORE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LORE_MAX_BODY_BYTES: z.coerce.number().int().positive().default(2 * 1024 * 1024),
  NODE_ENV: z.string().optional(),
  NEO4J_URL: z.string().optional(),
  NEO4J_USER: z.string().optional(),
  NEO4J_PASSWORD: z.string().optional(),
});

export type Config = {
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  siteUrl?: string;
  docsUrl?: string;
  apiEnabled: boolean;
  graphiql: boolean;
  logLevel: z.infer<typeof envSchema>['LORE_LOG_LEVEL'];
  maxBodyBytes: number;
  neo4j?: { url: string; user: string; password: string };
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`invalid configuration: ${issue.path.join('.')} ${issue.message}`);
  }
  const e = parsed.data;
  const neo4jParts = [e.NEO4J_URL, e.NEO4J_USER, e.NEO4J_PASSWORD];
  if (neo4jParts.some(Boolean) && !neo4jParts.every(Boolean)) {
    throw new ConfigError('invalid configuration: NEO4J_URL, NEO4J_USER and NEO4J_PASSWORD must be set together');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.LORE_DATA_DIR),
    siteUrl: e.LORE_SITE_URL?.replace(/\/$/, ''),
    docsUrl: e.LORE_DOCS_URL?.replace(/\/$/, ''),
    apiEnabled: e.TRACK_2_API_ENABLED,
    graphiql: e.LORE_GRAPHIQL ?? e.NODE_ENV !== 'production',
    logLevel: e.LORE_LOG_LEVEL,
    maxBodyBytes: e.LORE_MAX_BODY_BYTES,
    neo4j: e.NEO4J_URL ? { url: e.NEO4J_URL, user: e.NEO4J_USER!, password: e.NEO4J_PASSWORD! } : undefined,
  };
}
