// The production build: hashed files under dist/assets, no inline script (the CSP
// allows scripts from the page's own origin only), no source maps shipped.
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
  },
});
