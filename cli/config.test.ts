import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appConfig } from '../api/config.ts';
import { engineConfig } from '../engine/partition/index.ts';
import { ENVIRONMENT, loadConfig, type EnvironmentVariable } from './config.ts';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const loaded = loadConfig({});
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.config).toMatchObject({
      http: { port: 8080 },
      engine: { partitions: 8, role: 'all', leaseMs: 5_000, commandRetentionMs: 86_400_000, redisPrefix: 'orca:', schema: 'public' },
    });
  });

  it('fills the same defaults as the helper tests and benches build configurations with (one schema)', () => {
    const loaded = loadConfig({});
    expect(loaded.ok && loaded.config).toEqual(appConfig());
    expect(loaded.ok && loaded.config.engine).toEqual(engineConfig());
  });

  it('puts each variable where the code reads it, the engine its section whole', () => {
    const loaded = loadConfig({
      PORT: '9090',
      PUBLIC_URL: 'https://orca.example.org',
      DATABASE_URL: ' postgres://db/orca ',
      REDIS_URL: 'rediss://cache:6380',
      ORCA_DATA_DIR: '/var/lib/orca',
      ORCA_DB_SCHEMA: 'orca_one',
      ORCA_REDIS_PREFIX: 'one:',
      ORCA_PARTITIONS: '16',
      ORCA_ROLE: 'engine',
      ORCA_LEASE_MS: '2000',
      ORCA_COMMAND_RETENTION_MS: '3600000',
      ORCA_DB_APPLICATION_NAME: 'orca-eu-1',
      SMTP_URL: 'smtp://mail:25',
      ORCA_RATE_LIMIT_PER_SECOND: '5',
      ORCA_RATE_LIMIT_BURST: '10',
      ORCA_SESSION_TTL_SECONDS: '3600',
      ORCA_CREDITS: 'off',
      ORCA_CREDITS_LOW_THRESHOLD: '25',
      ORCA_ADMIN_TOKEN: 'operator-token-0123456789',
      ORCA_METRICS: 'off',
      ORCA_MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:5173',
      ORCA_WEBHOOK_SECRET_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
      ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      ORCA_WEBHOOK_DISPATCHER: 'off',
      ORCA_WEBHOOK_TIMEOUT_MS: '5000',
      ORCA_WEBHOOK_PER_ENDPOINT: '8',
      ORCA_WEBHOOK_LOG_RETENTION_MS: '604800000',
      ORCA_URL: 'http://orca-api.orca:8080',
      ORCA_OPERATOR_WATCH_NAMESPACE: 'models',
      ORCA_OPERATOR_LEASE_NAMESPACE: 'orca',
      ORCA_OPERATOR_IDENTITY: 'orca-operator-7d9f',
      ORCA_OPERATOR_RESYNC_SECONDS: '60',
    } satisfies Record<EnvironmentVariable, string>);
    expect(loaded).toMatchObject({
      ok: true,
      config: {
        http: { port: 9090, publicUrl: 'https://orca.example.org' },
        mail: { smtpUrl: 'smtp://mail:25' },
        rateLimit: { perSecond: 5, burst: 10 },
        metrics: { enabled: false },
        accounts: { sessionTtlSeconds: 3_600 },
        credits: { enabled: false, lowThreshold: 25, adminToken: 'operator-token-0123456789' },
        mcp: { allowedOrigins: ['https://app.example.com', 'http://localhost:5173'] },
        webhooks: {
          secretKey: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
          allowPrivateNetworks: true,
          dispatcher: false,
          timeoutMs: 5000,
          perEndpoint: 8,
          logRetentionMs: 604_800_000,
        },
        operator: { orcaUrl: 'http://orca-api.orca:8080', watchNamespace: 'models', leaseNamespace: 'orca', identity: 'orca-operator-7d9f', resyncSeconds: 60 },
        engine: {
          databaseUrl: 'postgres://db/orca',
          redisUrl: 'rediss://cache:6380',
          dataDir: '/var/lib/orca',
          schema: 'orca_one',
          dbApplicationName: 'orca-eu-1',
          redisPrefix: 'one:',
          partitions: 16,
          role: 'engine',
          leaseMs: 2_000,
          commandRetentionMs: 3_600_000,
        },
      },
    });
  });

  it('takes a blank URL or prefix as unset', () => {
    const loaded = loadConfig({ DATABASE_URL: '', REDIS_URL: '  ', ORCA_REDIS_PREFIX: ' ', SMTP_URL: '' });
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.config.engine).toMatchObject({ databaseUrl: undefined, redisUrl: undefined, redisPrefix: 'orca:' });
    expect(loaded.config.mail.smtpUrl).toBeUndefined();
  });

  it('names each bad variable and why', () => {
    const loaded = loadConfig({
      ORCA_COMMAND_RETENTION_MS: '1000',
      ORCA_PARTITIONS: 'many',
      DATABASE_URL: 'mysql://x',
      ORCA_ROLE: 'worker',
      ORCA_REDIS_PREFIX: 'a{b}',
      PORT: '70000',
      ORCA_URL: 'ftp://orca',
      ORCA_OPERATOR_RESYNC_SECONDS: '0',
      ORCA_WEBHOOK_SECRET_KEY: 'c2hvcnQ=',
      ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'maybe',
      ORCA_WEBHOOK_TIMEOUT_MS: '10',
      ORCA_WEBHOOK_PER_ENDPOINT: '0',
    });
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ORCA_COMMAND_RETENTION_MS: /),
        expect.stringMatching(/^ORCA_PARTITIONS: /),
        expect.stringMatching(/^DATABASE_URL: must be a URL starting with postgres:\/\/ or postgresql:\/\//),
        expect.stringMatching(/^ORCA_ROLE: /),
        expect.stringMatching(/^ORCA_REDIS_PREFIX: must be at most 100 characters without "\{", "\}" or whitespace/),
        expect.stringMatching(/^PORT: /),
        expect.stringMatching(/^ORCA_URL: /),
        expect.stringMatching(/^ORCA_OPERATOR_RESYNC_SECONDS: /),
        expect.stringMatching(/^ORCA_WEBHOOK_SECRET_KEY: must be 32 bytes as base64/),
        expect.stringMatching(/^ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS: /),
        expect.stringMatching(/^ORCA_WEBHOOK_TIMEOUT_MS: /),
        expect.stringMatching(/^ORCA_WEBHOOK_PER_ENDPOINT: /),
      ]),
    );
    expect(loaded.errors).toHaveLength(12);
  });

  it('takes ORCA_METRICS on or off (default on), and names any other value', () => {
    const defaults = loadConfig({});
    expect(defaults.ok && defaults.config.metrics.enabled).toBe(true);
    const off = loadConfig({ ORCA_METRICS: 'off' });
    expect(off.ok && off.config.metrics.enabled).toBe(false);
    const bad = loadConfig({ ORCA_METRICS: 'yes' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors).toEqual([expect.stringMatching(/^ORCA_METRICS: /)]);
  });

  it('ignores variables it does not know', () => {
    const loaded = loadConfig({ HOME: '/root', ORCA_UNKNOWN: 'x' });
    expect(loaded.ok && loaded.config).toEqual(appConfig());
  });
});

describe('configuration helpers', () => {
  it('merge overrides over the defaults, nested sections field by field', () => {
    const config = appConfig({ engine: { partitions: 2 } }, { engine: { role: 'api' }, http: { port: 0 } });
    expect(config.engine).toEqual(engineConfig({ partitions: 2, role: 'api' }));
    expect(config.http).toMatchObject({ port: 0, host: '0.0.0.0' });
  });

  it('refuse a bad value, naming the field', () => {
    expect(() => engineConfig({ partitions: 0 })).toThrow(/partitions: /);
    expect(() => appConfig({ engine: { leaseMs: 10 } })).toThrow(/engine\.leaseMs: /);
  });
});

describe("docs/configuration.md's table", () => {
  const rows = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => /^\| `[A-Z_]+`/.test(line))
    .map((line) => {
      const [variable, defaultCell] = line.split('|').slice(1, 3);
      return { name: /`([A-Z_]+)`/.exec(variable)![1], defaultCell: defaultCell.trim() };
    });

  it('lists exactly the variables orca start reads', () => {
    expect(rows.map((r) => r.name).sort()).toEqual(Object.keys(ENVIRONMENT).sort());
  });

  it('states each default as the schema has it', () => {
    const loaded = loadConfig({});
    if (!loaded.ok) throw new Error(loaded.errors.join('\n'));
    for (const { name, defaultCell } of rows) {
      const [section, field] = ENVIRONMENT[name as EnvironmentVariable];
      const setting = (loaded.config[section] as Record<string, unknown>)[field];
      // A switch is written on or off in the environment.
      const value = typeof setting === 'boolean' ? (setting ? 'on' : 'off') : setting;
      if (value === undefined) expect(defaultCell, name).toMatch(/^unset/);
      else expect(defaultCell, name).toMatch(new RegExp(`^\`${String(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\``));
    }
  });
});
