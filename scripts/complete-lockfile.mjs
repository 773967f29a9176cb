#!/usr/bin/env node
// Completes package-lock.json for `npm ci` on this workplace's registry
// mirror. The mirror serves only linux-x64 builds, so when npm writes the
// lock it cannot record the other platforms' optional packages (for example
// @rollup/rollup-darwin-arm64) that packages list under optionalDependencies;
// `npm ci` then refuses the lock as out of sync. An entry marked optional,
// with the version the parent asks for, satisfies that check; npm never
// fetches it here because optional packages that cannot be installed are
// skipped. Idempotent: a lock written against a full registry is unchanged.
import { readFileSync, writeFileSync } from 'node:fs';

const path = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages ?? {};
let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${location ? `${location}/` : ''}node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (packages[nested] !== undefined || packages[hoisted] !== undefined) continue;
    packages[hoisted] = { version, optional: true };
    added++;
  }
}
if (added > 0) writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: ${added} optional package entr${added === 1 ? 'y' : 'ies'} added`);
