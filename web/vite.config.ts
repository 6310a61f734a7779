import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard (E7): built by `npm run build` into dist/web/, which the service serves
 * (src/dashboard/dashboard.routes.ts). Preact's JSX through Vite's own transformer (Oxc), so no
 * Babel plugin is needed.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // Absolute asset URLs: index.html is served for deep paths such as /projects/123.
  base: '/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web/', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Every browser the dashboard supports loads modules natively; the polyfill would only add code.
    modulePreload: { polyfill: false },
    // Keep every asset a file: an inlined data: font or script would need a looser policy.
    assetsInlineLimit: 0,
    sourcemap: true,
  },
  server: {
    // `npx vite web` during development: the API is the service on its default port.
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
