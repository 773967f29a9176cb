// Builds the console and the task list into ui/dist (ui/vite.config.ts).
// `npm ci` runs it as `prepare`, `npm start` with --if-missing (build only
// when there is none). Without Vite (an install that omitted dev
// dependencies) it says so and leaves the server to answer 503 on /console/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = existsSync(`${root}ui/dist/console/index.html`) && existsSync(`${root}ui/dist/tasklist/index.html`);
if (process.argv.includes('--if-missing') && built) process.exit(0);

let vite;
try {
  vite = await import('vite');
} catch {
  console.warn('orca: Vite is not installed (dev dependencies omitted?), so /console and /tasklist are not built; run `npm ci` to build them.');
  process.exit(0);
}
console.log('orca: building the console and the task list into ui/dist …');
await vite.build({ configFile: `${root}ui/vite.config.ts` });
