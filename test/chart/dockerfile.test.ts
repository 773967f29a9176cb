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

interface Copy {
  stage: number;
  /** The stage copied from, or undefined for the build context. */
  from?: string;
  sources: string[];
  /** Where it lands, relative to the image's WORKDIR /app. */
  destination: string;
}

function copies(): Copy[] {
  return instructions()
    .filter((i) => i.keyword === 'COPY')
    .map((i) => {
      const parts = i.args.split(/\s+/);
      const from = parts.find((part) => part.startsWith('--from='))?.slice('--from='.length);
      const paths = parts.filter((part) => !part.startsWith('--'));
      return { stage: i.stage, from, sources: paths.slice(0, -1), destination: paths.at(-1)!.replace(/^\.\//, '').replace(/\/$/, '') };
    });
}

/** Sources of the COPY instructions that copy from the build context (not from another stage), the whole context (.) aside. */
function contextCopies(): string[] {
  return copies()
    .filter((c) => c.from === undefined)
    .flatMap((c) => c.sources)
    .filter((source) => source !== '.');
}

/** What the final stage holds under /app, as repository-relative paths: the context's files by name, the other stages' by destination. */
function imagePaths(): string[] {
  const last = Math.max(...instructions().map((i) => i.stage));
  return copies()
    .filter((c) => c.stage === last)
    .flatMap((c) => (c.from === undefined && c.destination === '' ? c.sources : [c.destination]))
    .map((path) => path.replace(/\/$/, ''));
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

/** The npm packages a module loads at run time (type-only imports are erased, so they do not count). */
function packagesLoaded(file: string): string[] {
  const source = readFileSync(file, 'utf8').replace(/^(import|export) type [^;]*;/gm, '');
  const specifiers = [
    ...source.matchAll(/\bfrom\s+'([^.'][^']*)'/g),
    ...source.matchAll(/\bimport\(\s*'([^.'][^']*)'\s*\)/g),
    ...source.matchAll(/^import\s+'([^.'][^']*)'/gm),
  ].map((m) => m[1]);
  return specifiers
    .filter((specifier) => !specifier.startsWith('node:'))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    );
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
    // The image's node_modules come from one stage, whose install omits the dev dependencies.
    const all = instructions();
    const nodeModules = copies().filter((c) => c.stage === Math.max(...all.map((i) => i.stage)) && c.destination === 'node_modules');
    expect(nodeModules).toHaveLength(1);
    const stage = all.findIndex((i) => i.keyword === 'FROM' && i.args.endsWith(` AS ${nodeModules[0].from}`));
    const installs = all.filter((i) => i.stage === all[stage].stage && i.keyword === 'RUN' && /\bnpm (ci|install)\b/.test(i.args));
    expect(installs).toHaveLength(1);
    expect(installs[0].args).toContain('--omit=dev');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.dependencies.tsx).toBeDefined();
    expect(pkg.scripts.start).toContain('tsx cli/orca.ts');
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

  it('has every package those modules load among the production dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const loaded = new Set(
      runtimeClosure()
        .filter((file) => /\.(ts|js|mjs)$/.test(file) && existsSync(join(ROOT, file)))
        .flatMap((file) => packagesLoaded(join(ROOT, file))),
    );
    expect(loaded).toContain('fastify');
    expect([...loaded].filter((name) => !(name in pkg.dependencies)).sort()).toEqual([]);
  });

  it('builds the web UIs in a stage of their own when there is a build for them, and copies only what it built', () => {
    const ui = copies().find((c) => c.from === 'ui');
    expect(ui).toEqual(expect.objectContaining({ sources: ['/app/ui/dist'], destination: 'ui/dist' }));
    expect(dockerfile).toContain('npm run build:ui --if-present');
    expect(dockerignore).toEqual(expect.arrayContaining(['!ui/', 'ui/dist/']));
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
    const copied = imagePaths();
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
