/** Builds the `fisk web` page into dist/web/page: one script, one stylesheet, nothing fetched from elsewhere. */
import { URL, fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web/page', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    modulePreload: false,
    target: 'es2022',
  },
});
