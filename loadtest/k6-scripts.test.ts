// The k6 scripts in loadtest/k6 cannot run here (no k6 binary), so CI holds
// them to what can be checked without one: they type-check against
// @types/k6 with their own tsconfig (every script and lib module really in
// that program), and each script, read as text, is a k6 test: it exports
// `options` with thresholds (failed requests and a p(99) latency) and a
// default function, names only exported functions as scenario `exec`,
// imports only k6 modules and local files that exist, opens only files that
// exist, and every environment variable it reads is documented in the README.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const K6_DIR = path.join(ROOT, 'loadtest', 'k6');
const SCRIPTS = readdirSync(K6_DIR).filter((f) => f.endsWith('.js'));
const LIBS = readdirSync(path.join(K6_DIR, 'lib')).filter((f) => f.endsWith('.js'));
const README = readFileSync(path.join(K6_DIR, 'README.md'), 'utf8');
const read = (file: string) => readFileSync(path.join(K6_DIR, file), 'utf8');

function tsc(...args: string[]) {
  return spawnSync('npx', ['tsc', '-p', 'loadtest/k6', '--noEmit', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
}

/** The text of `export const options = { … }`, up to its closing brace at the start of a line. */
function optionsBlock(source: string): string {
  const start = source.indexOf('export const options = {');
  if (start < 0) return '';
  const end = source.indexOf('\n};', start);
  return end < 0 ? '' : source.slice(start, end + 3);
}

/** Names of the environment variables a module reads. */
function envNames(source: string): string[] {
  const names = new Set<string>();
  for (const match of source.matchAll(/env(?:String|Number|Duration|Flag)\('([A-Z0-9_]+)'/g)) names.add(match[1]);
  for (const match of source.matchAll(/__ENV\.([A-Z0-9_]+)/g)) names.add(match[1]);
  return [...names];
}

describe('k6 scripts', () => {
  it('has the scenarios the README promises', () => {
    expect(SCRIPTS.sort()).toEqual(['end-to-end.js', 'job-workers.js', 'start-instances.js', 'task-list-users.js']);
  });

  it('type-check against @types/k6 (npx tsc -p loadtest/k6 --noEmit)', { timeout: 120_000 }, () => {
    const result = tsc();
    expect(result.stdout + result.stderr).not.toMatch(/error TS/);
    expect(result.status).toBe(0);
  });

  it('are all in the type-checked program, with the k6 types', { timeout: 120_000 }, () => {
    const result = tsc('--listFilesOnly');
    expect(result.status).toBe(0);
    const files = result.stdout.split('\n').map((f) => path.resolve(ROOT, f.trim()));
    for (const file of [...SCRIPTS, ...LIBS.map((l) => `lib/${l}`)]) expect(files).toContain(path.join(K6_DIR, file));
    expect(files.some((f) => f.includes(`${path.sep}@types${path.sep}k6${path.sep}http${path.sep}index.d.ts`))).toBe(true);
    // Node's types must not leak in: a k6 script has no process, Buffer or require.
    expect(files.some((f) => f.includes(`${path.sep}@types${path.sep}node${path.sep}`))).toBe(false);
  });

  describe.each(SCRIPTS)('%s', (script) => {
    const source = read(script);

    it('exports options with thresholds on failed requests and p(99) latency', () => {
      const options = optionsBlock(source);
      expect(options, 'export const options = { … }').not.toBe('');
      const thresholds = options.includes('thresholds,') ? (source.match(/const thresholds = \{[\s\S]*?\n\};/)?.[0] ?? '') : options;
      expect(options).toMatch(/\bthresholds\b/);
      expect(thresholds).toMatch(/http_req_failed: \[`rate<\$\{MAX_FAILED\}`\]/);
      expect(thresholds).toMatch(/'http_req_duration\{op:[a-z-]+\}': \[`p\(99\)<\$\{P99_MS\}`\]/);
    });

    it('exports a default function', () => {
      expect(source).toMatch(/^export default function\s*\(/m);
    });

    it('names only exported functions as scenario exec, and uses known executors', () => {
      for (const [, exec] of source.matchAll(/exec: '([A-Za-z0-9_]+)'/g)) {
        if (exec === 'default') continue;
        expect(source, `exec '${exec}'`).toMatch(new RegExp(`^export function ${exec}\\(`, 'm'));
      }
      const executors = [...source.matchAll(/executor: '([a-z-]+)'/g)].map((m) => m[1]);
      expect(executors.length).toBeGreaterThan(0);
      for (const executor of executors) expect(['constant-arrival-rate', 'constant-vus']).toContain(executor);
    });

    it('imports only k6 modules and local modules that exist, and opens only files that exist', () => {
      for (const file of [script, ...LIBS.map((l) => `lib/${l}`)]) {
        const text = read(file);
        for (const [, specifier] of text.matchAll(/^import [^;]*? from '([^']+)';/gm)) {
          if (specifier === 'k6' || specifier.startsWith('k6/')) continue;
          expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\.?\/.*\.js$/);
          expect(existsSync(path.resolve(path.dirname(path.join(K6_DIR, file)), specifier)), `${file} imports ${specifier}`).toBe(true);
        }
        expect(text).not.toMatch(/\brequire\(|\bprocess\.|node:/);
      }
      for (const [, opened] of source.matchAll(/open\('([^']+)'\)/g)) expect(existsSync(path.join(K6_DIR, opened)), opened).toBe(true);
    });

    it('documents each environment variable it reads in the README', () => {
      const names = [...envNames(source), ...LIBS.flatMap((l) => envNames(read(`lib/${l}`)))];
      expect(names).toEqual(expect.arrayContaining(['BASE_URL', 'API_KEY']));
      for (const name of names) expect(README, name).toContain(`\`${name}\``);
      expect(README).toContain(`\`${script}\``);
    });
  });

  it('start instances at a fixed arrival rate from RATE and DURATION', () => {
    for (const script of ['start-instances.js', 'end-to-end.js', 'task-list-users.js']) {
      const options = optionsBlock(read(script));
      expect(options).toMatch(/executor: 'constant-arrival-rate',[\s\S]*?rate: RATE,[\s\S]*?duration: DURATION/);
      expect(read(script)).toContain("envNumber('RATE'");
    }
  });
});
