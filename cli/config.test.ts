import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const loaded = loadConfig({});
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.config).toMatchObject({ PORT: 8080, ORCA_PARTITIONS: 8, ORCA_ROLE: 'all', ORCA_LEASE_MS: 5_000, ORCA_COMMAND_RETENTION_MS: 86_400_000 });
  });

  it('names each bad variable and why', () => {
    const loaded = loadConfig({ ORCA_COMMAND_RETENTION_MS: '1000', ORCA_PARTITIONS: 'many', DATABASE_URL: 'mysql://x' });
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.errors).toEqual(
      expect.arrayContaining([expect.stringMatching(/^ORCA_COMMAND_RETENTION_MS: /), expect.stringMatching(/^ORCA_PARTITIONS: /), expect.stringMatching(/^DATABASE_URL: /)]),
    );
    expect(loaded.errors).toHaveLength(3);
  });

  it('reads a retention in milliseconds', () => {
    const loaded = loadConfig({ ORCA_COMMAND_RETENTION_MS: '3600000' });
    expect(loaded.ok && loaded.config.ORCA_COMMAND_RETENTION_MS).toBe(3_600_000);
  });
});
