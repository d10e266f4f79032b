// The production build: hashed files under dist/assets, no inline script (the CSP
// allows scripts from the page's own origin only), no source maps shipped, and each
// script and style sheet also written compressed (.br, .gz) for the local server, which
// sends the copy the browser takes (CloudFront compresses by itself on AWS).
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vite';

function precompress() {
  return {
    name: 'precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css)$/.test(name)) continue;
        const path = join(options.dir, name);
        const data = readFileSync(path);
        writeFileSync(`${path}.gz`, gzipSync(data, { level: 9 }));
        writeFileSync(`${path}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

export default defineConfig({
  plugins: [precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
  },
});
