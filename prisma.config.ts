// Prisma CLI configuration: the wasm schema engine through the pg driver adapter, so no native engine is downloaded.
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';

// The CLI falls back to downloading an engine when the datasource URL does not resolve, so it always has one.
const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/lore');
process.env.DATABASE_URL = url.toString();

export default defineConfig({
  schema: 'prisma/schema.prisma',
  experimental: { adapter: true },
  engine: 'js',
  // Discrete fields: a connectionString would override the shadow database's name.
  adapter: async () =>
    new PrismaPg({
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: url.pathname.slice(1),
      allowExitOnIdle: true,
    }),
});
