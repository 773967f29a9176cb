// Lint config: typescript-eslint's recommended rules over the whole tree, the
// type-aware promise rules on TypeScript (a dropped promise is a lost write
// or an unhandled rejection here), and the layer boundaries of
// docs/architecture.md as import rules, so a reach across a layer fails
// `npm run lint` instead of waiting for a reviewer. Import cycles are checked
// by scripts/check-cycles.mjs, which `npm run lint` also runs.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Modules that reach outside the process: files, sockets, processes, databases, Redis, mail, HTTP.
const IO_MODULES = [
  'fs',
  'fs/promises',
  'net',
  'tls',
  'dgram',
  'dns',
  'http',
  'https',
  'http2',
  'child_process',
  'cluster',
  'worker_threads',
  'readline',
].flatMap((name) => [name, `node:${name}`]);
const IO_PACKAGES = ['pg', 'ioredis', '@electric-sql/pglite', 'drizzle-orm', 'fastify', 'mercurius', 'nodemailer', 'undici'];

const outOfEngine = {
  regex: '^(\\.\\./)+(api|cli|operator|test|loadtest)/',
  message: 'engine/ is the bottom layer: it imports nothing from api, cli, operator, test or loadtest.',
};
const otelSdk = {
  regex: '^@opentelemetry/(?!api$)',
  message: "engine/ records traces through @opentelemetry/api only: the SDK is the service's (api/tracing/), handed in as a Tracer.",
};
const intoWritePath = {
  regex: '^(\\.\\./)+(store|queue|partition)(/|$)',
  message: 'The runtime, model, FEEL, DMN and timers only compute: they import nothing from store, queue or partition.',
};
const ioPackages = {
  regex: `^(${IO_PACKAGES.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})(/|$)`,
  message: 'The runtime, model, FEEL, DMN and timers do no I/O.',
};
const ioModules = { paths: IO_MODULES.map((name) => ({ name, message: 'The runtime, model, FEEL, DMN and timers do no I/O.' })) };
const engineInternals = {
  regex: '^(\\.\\./)+engine/(?!index\\.ts$)',
  message: 'api/ uses the engine only through its public face, engine/index.ts: export what is needed there.',
};
const outOfApi = {
  regex: '^(\\.\\./)+(cli|operator|test|loadtest)/',
  message: 'api/ is served by cli/ and tested by test/; it imports neither.',
};

const outOfClient = {
  regex: '^(\\.\\./)+(engine|api|cli|operator|test|loadtest|scripts|examples)/',
  message: 'client/ is published on its own: it speaks to the server over HTTP only and imports nothing from the rest of the repository.',
};

const outOfUi = {
  regex: '^(\\.\\./)+(engine|api|cli|client|operator|test|loadtest|scripts|examples)/',
  message: 'ui/ runs in the browser: it speaks to the server over HTTP only and imports nothing from the rest of the repository.',
};

const intoServer = {
  regex: '^(\\.\\./)+(engine|api)/',
  message: 'The commands that talk to a server do so through client/ only; loading the engine or the API would also slow every one of them down.',
};

const outOfOperator = {
  regex: '^(\\.\\./)+(engine|api|cli|test|loadtest)/',
  message: 'operator/ is a client of Orca (client/) and of Kubernetes (@kubernetes/client-node): it imports nothing from engine, api, cli, test or loadtest.',
};
const intoOperatorTesting = {
  regex: '(^|/)testing/',
  message: 'operator/testing/ (the fake Kubernetes API server) is test support: only tests and benchmarks use it.',
};

const PURE = ['engine/runtime', 'engine/model', 'engine/feel', 'engine/dmn', 'engine/timer', 'engine/cmmn'];

export default tseslint.config(
  { ignores: ['node_modules/**', '.orca-data/**', 'coverage/**', 'dist/**', 'ui/dist/**', 'test-output/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly', Buffer: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // A promise returned from inside try without await escapes its catch and finally.
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/no-implied-eval': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      // Not require-await: an async method honouring an async interface need not await anything.
    },
  },
  {
    files: ['engine/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [outOfEngine, otelSdk] }] },
  },
  {
    // Tests of the pure layers may read their fixture files; they still need no service.
    files: PURE.map((dir) => `${dir}/**/*.test.ts`),
    rules: { 'no-restricted-imports': ['error', { patterns: [outOfEngine, otelSdk, intoWritePath, ioPackages] }] },
  },
  {
    files: PURE.map((dir) => `${dir}/**/*.ts`),
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { ...ioModules, patterns: [outOfEngine, otelSdk, intoWritePath, ioPackages] }] },
  },
  {
    files: ['api/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [engineInternals, outOfApi] }] },
  },
  {
    files: ['client/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [outOfClient] }] },
  },
  {
    files: ['operator/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [outOfOperator] }] },
  },
  {
    files: ['operator/**/*.ts'],
    ignores: ['**/*.test.ts', 'operator/testing/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [outOfOperator, intoOperatorTesting] }] },
  },
  {
    files: ['ui/**/*.ts'],
    ignores: ['ui/vite.config.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [outOfUi, ioPackages], paths: IO_MODULES }] },
  },
  {
    files: ['cli/commands/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [intoServer] }] },
  },
);
