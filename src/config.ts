// The one place that reads process.env: validated once, failing fast with one clear line.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

// Clients' env blocks often carry "" for a value left out; that means unset, not invalid.
/** The least cosine similarity at which a vector neighbour counts as a search result (LORE_EMBEDDINGS_MIN_SIMILARITY). */
export const defaultMinSimilarity = 0.3;

const optionalText = z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().min(1).optional());

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL')
    .refine((value) => URL.canParse(value), 'must be a postgresql:// URL')
    .optional(),
  LORE_DATA_DIR: optionalText,
  LORE_SITE_URL: z.url().optional(),
  LORE_DOCS_URL: z.url().optional(),
  TRACK_2_API_ENABLED: flag.default(true),
  LORE_GRAPHIQL: flag.optional(),
  LORE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LORE_MAX_BODY_BYTES: z.coerce.number().int().positive().default(2 * 1024 * 1024),
  LORE_READ_CACHE_MB: z.coerce.number().int().min(0).max(65_536).default(64),
  LORE_READ_CACHE_STATS: optionalText,
  LORE_WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  LORE_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().max(600_000).default(10_000),
  LORE_MANUSCRIPT_TIMEOUT_MS: z.coerce.number().int().positive().max(3_600_000).default(60_000),
  LORE_MANUSCRIPT_MEMORY_MB: z.coerce.number().int().min(16).max(65_536).default(1024),
  NODE_ENV: z.string().optional(),
  NEO4J_URL: z.string().optional(),
  NEO4J_USER: z.string().optional(),
  NEO4J_PASSWORD: z.string().optional(),
  // The MCP server (`lore mcp`, bin/lore-mcp.mjs), configured from the env block of the AI client.
  LORE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  LORE_API_KEY: optionalText,
  LORE_PROJECT_ID: optionalText,
  LORE_MCP_EMBEDDED: flag.default(false),
  LORE_LLM_PROVIDER: optionalText,
  LORE_LLM_KEY: optionalText,
  LORE_LLM_MODEL: optionalText,
  // LLM providers: base URLs are server configuration only, never taken from a request.
  LORE_OPENAI_BASE_URL: z.url().default('https://api.openai.com/v1'),
  LORE_ANTHROPIC_BASE_URL: z.url().default('https://api.anthropic.com/v1'),
  LORE_OPENAI_COMPATIBLE_BASE_URL: z.url().optional(),
  LORE_LLM_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  LORE_MANAGED_LLM_PROVIDER: z.string().optional(),
  LORE_MANAGED_LLM_KEY: z.string().optional(),
  LORE_MANAGED_LLM_MODEL: z.string().optional(),
  // Semantic search: an OpenAI-compatible embeddings endpoint (server configuration only, never from a request).
  LORE_EMBEDDINGS_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^https?$/ }).optional()),
  LORE_EMBEDDINGS_MODEL: optionalText,
  LORE_EMBEDDINGS_KEY: optionalText,
  LORE_EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(1).max(16_000).optional(),
  LORE_EMBEDDINGS_MIN_SIMILARITY: z.coerce.number().min(-1).max(1).default(defaultMinSimilarity),
  LORE_EMBEDDINGS_TIMEOUT_MS: z.coerce.number().int().positive().max(600_000).default(5_000),
});

export type Config = {
  port: number;
  host: string;
  databaseUrl?: string;
  /** LORE_DATA_DIR, or the `.lore` found as git finds its repository (see findDataDir) */
  dataDir: string;
  /** LORE_API_URL when it is set: the gateway the CLI's keyed commands and the MCP server call */
  apiUrl?: string;
  siteUrl?: string;
  docsUrl?: string;
  apiEnabled: boolean;
  graphiql: boolean;
  logLevel: z.infer<typeof envSchema>['LORE_LOG_LEVEL'];
  maxBodyBytes: number;
  /** memory for recall and search pages per process, each valid while its project's canon is unchanged; 0: off */
  readCacheMb: number;
  /** LORE_READ_CACHE_STATS: a file the read cache writes its counts to every second (the benches read it) */
  readCacheStats?: string;
  /** gateway processes `lore serve` runs (PostgreSQL only: PGlite serves one process) */
  workers: number;
  /** on SIGTERM/SIGINT, how long requests in flight may take to finish before they are cut off */
  shutdownTimeoutMs: number;
  /** reading one manuscript (its own worker thread): how long it may take and how much heap it may use */
  manuscripts: { timeoutMs: number; memoryMb: number };
  neo4j?: { url: string; user: string; password: string };
  /**
   * LORE_API_KEY: the key the MCP server calls with, and the CLI's key when a command is given no --key (so it stays
   * out of shell history). The MCP server checks it when a tool is called, reporting a missing or malformed key to the
   * client rather than crashing.
   */
  apiKey?: string;
  mcp: {
    apiUrl: string;
    projectId?: string;
    embedded: boolean;
    /** the caller's own LLM provider for the check and timeline tools (BYOK); the key is never logged */
    byok?: { provider: string; key: string; model?: string };
  };
  llm: {
    baseUrls: { openai: string; anthropic: string; 'openai-compatible'?: string };
    timeoutMs: number;
    /** the server's own provider key, used for Studio Managed keys that send no BYOK headers */
    managed?: { provider: string; key: string; model?: string };
  };
  /** semantic search's embedding provider; absent: search is lexical only */
  embeddings?: EmbeddingsConfig;
};

export type EmbeddingsConfig = {
  /** base URL of an OpenAI-compatible API (the client posts to `<url>/embeddings`) */
  url: string;
  model: string;
  /** the provider's key, sent as a Bearer token; never logged */
  key?: string;
  /** asked of the provider (OpenAI's text-embedding-3 models shorten their vectors to it) and checked on every vector */
  dimensions?: number;
  /** cosine similarity below which a vector match does not count */
  minSimilarity: number;
  /** how long a search waits for its query's vector before it answers lexically */
  queryTimeoutMs: number;
};

export class ConfigError extends Error {}

const defaultApiUrl = 'http://127.0.0.1:8787';
/** The gateway's root; its REST base (…/api/v1) or GraphQL endpoint (…/graphql) given instead is an easy mistake, taken as the root. */
const gatewayRoot = (url: string) => url.replace(/\/+$/, '').replace(/\/(api\/v1|graphql)$/, '');
const isDirectory = (p: string) => existsSync(p) && statSync(p).isDirectory();

/**
 * The data directory when LORE_DATA_DIR is not set, found as git finds its repository: the nearest `.lore` from the
 * working directory up, not past the checkout's root (the nearest directory with `.git`), where a new store goes; with
 * neither, `.lore` in the working directory. So a command run in a subfolder reaches the same store.
 */
export function findDataDir(cwd: string): string {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (isDirectory(path.join(dir, '.lore'))) return path.join(dir, '.lore');
    if (existsSync(path.join(dir, '.git'))) return path.join(dir, '.lore');
    if (path.dirname(dir) === dir) return path.resolve(cwd, '.lore');
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
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
  if (Boolean(e.LORE_LLM_PROVIDER) !== Boolean(e.LORE_LLM_KEY) || (e.LORE_LLM_MODEL && !e.LORE_LLM_PROVIDER)) {
    throw new ConfigError('invalid configuration: LORE_LLM_PROVIDER and LORE_LLM_KEY must be set together (LORE_LLM_MODEL only with them)');
  }
  if (Boolean(e.LORE_EMBEDDINGS_URL) !== Boolean(e.LORE_EMBEDDINGS_MODEL) || ((e.LORE_EMBEDDINGS_KEY || e.LORE_EMBEDDINGS_DIMENSIONS) && !e.LORE_EMBEDDINGS_URL)) {
    throw new ConfigError('invalid configuration: LORE_EMBEDDINGS_URL and LORE_EMBEDDINGS_MODEL must be set together (LORE_EMBEDDINGS_KEY and LORE_EMBEDDINGS_DIMENSIONS only with them)');
  }
  if (e.LORE_WORKERS > 1 && !e.DATABASE_URL) {
    throw new ConfigError('invalid configuration: LORE_WORKERS above 1 needs DATABASE_URL (the embedded PGlite serves one process)');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.LORE_DATA_DIR ? path.resolve(cwd, e.LORE_DATA_DIR) : findDataDir(cwd),
    apiUrl: e.LORE_API_URL === undefined ? undefined : gatewayRoot(e.LORE_API_URL),
    siteUrl: e.LORE_SITE_URL?.replace(/\/$/, ''),
    docsUrl: e.LORE_DOCS_URL?.replace(/\/$/, ''),
    apiEnabled: e.TRACK_2_API_ENABLED,
    graphiql: e.LORE_GRAPHIQL ?? e.NODE_ENV !== 'production',
    logLevel: e.LORE_LOG_LEVEL,
    maxBodyBytes: e.LORE_MAX_BODY_BYTES,
    readCacheMb: e.LORE_READ_CACHE_MB,
    readCacheStats: e.LORE_READ_CACHE_STATS,
    workers: e.LORE_WORKERS,
    shutdownTimeoutMs: e.LORE_SHUTDOWN_TIMEOUT_MS,
    manuscripts: { timeoutMs: e.LORE_MANUSCRIPT_TIMEOUT_MS, memoryMb: e.LORE_MANUSCRIPT_MEMORY_MB },
    neo4j: e.NEO4J_URL ? { url: e.NEO4J_URL, user: e.NEO4J_USER!, password: e.NEO4J_PASSWORD! } : undefined,
    apiKey: e.LORE_API_KEY,
    mcp: {
      apiUrl: gatewayRoot(e.LORE_API_URL ?? defaultApiUrl),
      projectId: e.LORE_PROJECT_ID,
      embedded: e.LORE_MCP_EMBEDDED,
      byok: e.LORE_LLM_PROVIDER && e.LORE_LLM_KEY ? { provider: e.LORE_LLM_PROVIDER, key: e.LORE_LLM_KEY, model: e.LORE_LLM_MODEL } : undefined,
    },
    llm: {
      baseUrls: {
        openai: e.LORE_OPENAI_BASE_URL.replace(/\/$/, ''),
        anthropic: e.LORE_ANTHROPIC_BASE_URL.replace(/\/$/, ''),
        'openai-compatible': e.LORE_OPENAI_COMPATIBLE_BASE_URL?.replace(/\/$/, ''),
      },
      timeoutMs: e.LORE_LLM_TIMEOUT_MS,
      managed:
        e.LORE_MANAGED_LLM_PROVIDER && e.LORE_MANAGED_LLM_KEY
          ? { provider: e.LORE_MANAGED_LLM_PROVIDER, key: e.LORE_MANAGED_LLM_KEY, model: e.LORE_MANAGED_LLM_MODEL }
          : undefined,
    },
    embeddings:
      e.LORE_EMBEDDINGS_URL && e.LORE_EMBEDDINGS_MODEL
        ? {
            // The client adds /embeddings itself; a URL given with it works too.
            url: e.LORE_EMBEDDINGS_URL.replace(/\/+$/, '').replace(/\/embeddings$/, ''),
            model: e.LORE_EMBEDDINGS_MODEL,
            key: e.LORE_EMBEDDINGS_KEY,
            dimensions: e.LORE_EMBEDDINGS_DIMENSIONS,
            minSimilarity: e.LORE_EMBEDDINGS_MIN_SIMILARITY,
            queryTimeoutMs: e.LORE_EMBEDDINGS_TIMEOUT_MS,
          }
        : undefined,
  };
}
