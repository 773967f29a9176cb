#!/usr/bin/env node
// Entry point for `npx orca`: registers tsx so the TypeScript sources run as they are.
import { register } from 'tsx/esm/api';

register();
await import('../cli/orca.ts');
