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
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // Cytoscape is one 440 kB chunk (140 kB gzipped), loaded only by the graph page.
    chunkSizeWarningLimit: 500,
    // The bundler's timing report is for tuning plugins: noise in `npm ci`'s output.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
