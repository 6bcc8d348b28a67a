// Builds the canon dashboard into dashboard/dist, which the gateway serves at / (app/dashboard.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  // JSX through Vite's own transform (React 17+ automatic runtime): no plugin needed for a production build.
  oxc: { jsx: { runtime: 'automatic' } },
  // The app's GraphQL operations live beside the others, in graph/operations/dashboard.
  server: { fs: { allow: ['..'] } },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500, sourcemap: false },
});
