// Vite build of the two web apps (api/routes/ui.ts serves them): one build,
// two pages, so the console and the task list share their chunks (bpmn-js,
// Preact). Assets are fetched from /ui/assets/ whatever page loads them.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/ui/',
  logLevel: 'warn',
  build: {
    outDir: here('dist'),
    emptyOutDir: true,
    // bpmn-js alone is larger than Vite's default warning size.
    chunkSizeWarningLimit: 2000,
    rollupOptions: {
      input: { console: here('console/index.html'), tasklist: here('tasklist/index.html') },
    },
  },
});
