// The commit thread's entry (commit-thread.ts). A worker thread does not
// inherit the TypeScript loader the main thread registered (bin/orca.js,
// tsx, vitest), so it registers tsx itself before loading its module.
import { register } from 'tsx/esm/api';

register();
await import('./commit-thread-worker.ts');
