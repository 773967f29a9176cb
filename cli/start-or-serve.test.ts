// `orca start` is the service without a process id and an instance start
// with one. The service is told apart by reaching its own configuration
// check (a bad --partitions is refused before anything is opened), so no
// server has to be started to see which way the command went.
import { describe, expect, it } from 'vitest';
import { wantsInstanceStart } from './commands/start-or-serve.ts';
import { orca } from './testing.ts';

describe('orca start: the service or an instance', () => {
  it('is the service with no arguments or only service flags', () => {
    expect(wantsInstanceStart([])).toBe(false);
    expect(wantsInstanceStart(['--role', 'api', '--partitions', '4'])).toBe(false);
    expect(wantsInstanceStart(['--role=engine', '--port=9090'])).toBe(false);
  });

  it('is an instance start with a process id, or with a flag only the instance start has', () => {
    expect(wantsInstanceStart(['order'])).toBe(true);
    expect(wantsInstanceStart(['order', '--vars', '{"a":1}'])).toBe(true);
    expect(wantsInstanceStart(['--vars', '{"a":1}', 'order'])).toBe(true);
    expect(wantsInstanceStart(['--json'])).toBe(true);
    expect(wantsInstanceStart(['--url', 'http://localhost:8080'])).toBe(true);
  });

  it('runs the service for `orca start` and `orca serve` with service flags', async () => {
    for (const command of ['start', 'serve']) {
      const r = await orca([command, '--partitions', '0']);
      expect(r.code).toBe(1);
      // Named as the user typed it.
      expect(r.stderr).toContain(`orca ${command}: ORCA_PARTITIONS: `);
    }
  });

  it('starts an instance when given a process id (and then needs a key)', async () => {
    const r = await orca(['start', 'order']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('orca start: no API key');
  });

  it('answers an unknown command and no command with the usage and exit 2', async () => {
    const unknown = await orca(['strat']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("orca: unknown command 'strat'");
    expect(unknown.stderr).toContain('orca worker TYPE');
    const help = await orca(['help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('orca serve');
  });
});
