// The Dockerfile cannot be built here (no Docker daemon), so this checks
// what can be checked without one: every COPY source exists and is let
// through by .dockerignore; every module `orca` can load at run time
// (the closure of bin/orca.js's relative imports, dynamic ones and files
// read next to a module included) is inside what the image copies; the
// final stage runs as a numeric non-root user with tsx among the production
// dependencies; and the chart's default image is the one docs/kubernetes.md
// says to build.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../crds/crd-documents.ts';

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const dockerignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

interface Instruction {
  keyword: string;
  args: string;
  stage: number;
}

/** The Dockerfile's instructions (continuation lines joined), each with the index of its build stage. */
function instructions(): Instruction[] {
  let stage = -1;
  return dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      if (keyword.toUpperCase() === 'FROM') stage++;
      return { keyword: keyword.toUpperCase(), args: rest.join(' '), stage };
    });
}

/** Sources of the COPY instructions that copy from the build context (not from another stage). */
function contextCopies(): string[] {
  return instructions()
    .filter((i) => i.keyword === 'COPY' && !/--from=/.test(i.args))
    .flatMap((i) => {
      const parts = i.args.split(/\s+/).filter((part) => !part.startsWith('--'));
      return parts.slice(0, -1);
    });
}

/** The .dockerignore patterns that start with a double star (they exclude inside the copied directories), as regular expressions over relative paths. */
function ignoredInside(): RegExp[] {
  return dockerignore
    .filter((line) => line.startsWith('**/'))
    .map((line) => {
      const glob = line.slice(3).replace(/\/$/, '/**');
      const body = glob
        .split('**')
        .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
        .join('.*');
      return new RegExp(`(^|/)${body}$`);
    });
}

/** Relative imports of a module, static and dynamic, and files it reads beside itself (new URL('./…', import.meta.url)). */
function localReferences(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers = [
    ...source.matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'/g),
    ...source.matchAll(/\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g),
    ...source.matchAll(/^import\s+'(\.{1,2}\/[^']+)'/gm),
    ...source.matchAll(/new URL\(\s*['`](\.{1,2}\/[^'`$]+)['`]\s*,\s*import\.meta\.url\)/g),
  ].map((m) => m[1]);
  return specifiers.map((specifier) => resolve(dirname(file), specifier));
}

/** Every file reachable from bin/orca.js through local references (directories read as a whole count as their path). */
function runtimeClosure(): string[] {
  const seen = new Set<string>();
  const queue = [join(ROOT, 'bin', 'orca.js')];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!existsSync(file) || statSync(file).isDirectory() || !/\.(ts|js|mjs)$/.test(file)) continue;
    queue.push(...localReferences(file));
  }
  return [...seen].map((file) => relative(ROOT, file));
}

describe('the Dockerfile', () => {
  it('is multi-stage, and its final stage runs as a numeric user that is not root', () => {
    const all = instructions();
    const last = Math.max(...all.map((i) => i.stage));
    expect(last).toBeGreaterThan(0);
    const users = all.filter((i) => i.stage === last && i.keyword === 'USER').map((i) => i.args);
    expect(users).toHaveLength(1);
    expect(users[0]).toMatch(/^[1-9]\d*(:\d+)?$/);
    expect(all.find((i) => i.stage === last && i.keyword === 'ENTRYPOINT')?.args).toBe('["node", "bin/orca.js"]');
  });

  it('installs only production dependencies, tsx among them (it runs the sources, as npm start does)', () => {
    const runs = instructions().filter((i) => i.keyword === 'RUN' && /\bnpm (ci|install)\b/.test(i.args));
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) expect(run.args).toContain('--omit=dev');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.dependencies.tsx).toBeDefined();
    expect(pkg.scripts.start).toMatch(/^tsx /);
    expect(readFileSync(join(ROOT, 'bin', 'orca.js'), 'utf8')).toContain("from 'tsx/esm/api'");
  });

  it('leaves tests and test helpers out', () => {
    const ignored = ignoredInside();
    for (const path of ['engine/runtime/processors.test.ts', 'engine/store/testing/database.ts', 'cli/testing.ts']) {
      expect(
        ignored.some((pattern) => pattern.test(path)),
        path,
      ).toBe(true);
    }
    for (const path of ['engine/index.ts', 'cli/start.ts', 'engine/store/migrations/0000_init.sql'])
      expect(
        ignored.some((pattern) => pattern.test(path)),
        path,
      ).toBe(false);
  });

  it('copies files that exist, and .dockerignore lets each through', () => {
    const sources = contextCopies();
    expect(sources.length).toBeGreaterThan(0);
    expect(dockerignore[0]).toBe('*');
    for (const source of sources) {
      expect(existsSync(join(ROOT, source)), source).toBe(true);
      expect(
        dockerignore.some((line) => line === `!${source}` || line === `!${source}/`),
        `.dockerignore lets ${source} through`,
      ).toBe(true);
    }
  });

  it('copies every module orca can load at run time', () => {
    const copied = contextCopies().map((source) => source.replace(/\/$/, ''));
    const closure = runtimeClosure();
    // The closure must have found the lazily loaded commands, or the check below proves nothing.
    expect(closure).toEqual(expect.arrayContaining(['cli/start.ts', 'api/app.ts', 'engine/index.ts', 'engine/store/migrations']));
    const missing = closure.filter((file) => !copied.some((source) => file === source || file.startsWith(`${source}/`)));
    expect(missing).toEqual([]);
    const ignored = ignoredInside();
    expect(ignored.length).toBeGreaterThan(0);
    expect(closure.filter((file) => ignored.some((pattern) => pattern.test(file)))).toEqual([]);
  });
});

describe("the chart's default image", () => {
  const chart = parse(readFileSync(join(ROOT, 'charts/orca/Chart.yaml'), 'utf8')) as { appVersion: string };
  const values = parse(readFileSync(join(ROOT, 'charts/orca/values.yaml'), 'utf8')) as { image: { repository: string; tag: string } };
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

  it("is tagged with the chart's appVersion, which is Orca's version", () => {
    expect(values.image.tag).toBe('');
    expect(chart.appVersion).toBe(pkg.version);
  });

  it('is what docs/kubernetes.md and the Dockerfile say to build', () => {
    const command = `docker build -t ${values.image.repository}:${chart.appVersion} .`;
    expect(readFileSync(join(ROOT, 'docs/kubernetes.md'), 'utf8')).toContain(command);
    expect(dockerfile).toContain(command);
  });
});
