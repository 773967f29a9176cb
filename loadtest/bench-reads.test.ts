// `bench:reads`'s harness is sound, at a tiny scale and with no speed figure
// asserted: the engine-made shapes cover every state of every model; a
// small bulk fill is consistent with itself — a definition's statistics
// (the element_stats rows the fill wrote, as the engine would have) equal
// the sum of its instances' own statistics (read from their documents and
// history by the instance route's code) and the instances by state; and a
// brief end-to-end run against a real server measures every route, ends
// with the JSON line and leaves no schema behind. Needs a real PostgreSQL
// (and Redis for the server); skipped with a message otherwise.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createStore } from '../engine/store/index.ts';
import { createTestDatabase } from '../engine/store/testing/database.ts';
import { fillStore } from './bench-reads-fill.ts';
import { buildShapes, MODELS } from './bench-reads-shapes.ts';
import { formatReadsReport, parseArgs, runReadsBenchmark } from './bench-reads.ts';

const realServices = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
if (!realServices) console.warn('bench-reads.test: DATABASE_URL and REDIS_URL are not both set; the fill and the run are skipped.');

describe('bench:reads shapes', () => {
  it('covers every state at every task of every model, in whole thousandths adding up to 1000', () => {
    const shapes = buildShapes();
    expect(shapes.reduce((sum, s) => sum + s.weight, 0)).toBe(1000);
    for (const model of MODELS) {
      const mine = shapes.filter((s) => s.bpmnProcessId === model.id);
      expect(new Set(mine.map((s) => s.state))).toEqual(new Set(['COMPLETED', 'ACTIVE', 'INCIDENT', 'TERMINATED']));
      expect(mine.filter((s) => s.state === 'INCIDENT').every((s) => s.incident !== undefined)).toBe(true);
    }
    for (const s of shapes) {
      // Every key became a placeholder: no engine key is left in the texts.
      expect(s.document).not.toMatch(/"[0-9]{10,}"/);
      expect(s.records).not.toMatch(/"[0-9]{10,}"/);
      expect(s.document).toContain('"@VARIABLES"');
    }
  });

  it('parses its flags and refuses unknown ones', () => {
    expect(parseArgs(['--instances=1_000', '--samples=5'])).toMatchObject({ instances: 1000, samples: 5, warmup: 20, partitions: 8 });
    expect(() => parseArgs(['--fast'])).toThrow(/unknown argument/);
    expect(() => parseArgs(['--samples=0'])).toThrow(/positive/);
  });
});

describe.skipIf(!realServices)('bench:reads on PostgreSQL', () => {
  const testDb = createTestDatabase();
  afterAll(() => testDb.cleanup());

  it("fills a store whose definition statistics equal the sum of its instances' statistics", async () => {
    const database = await testDb.open();
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL, options: `-c search_path=${testDb.schema}` });
    await client.connect();
    try {
      await fillStore(client, { account: 'acme', instances: 1200, partitions: 4, chunk: 500 });
    } finally {
      await client.end();
    }
    const store = createStore(database.db);
    for (const [bpmnProcessId, version] of [
      ['order', 1],
      ['order', 2],
      ['approval', 1],
      ['onboarding', 1],
    ] as const) {
      const definition = await store.statistics.definitionStatistics('acme', bpmnProcessId, version);
      const summed = new Map<string, { active: number; incidents: number; completed: number; canceled: number }>();
      const byState = { ACTIVE: 0, INCIDENT: 0, COMPLETED: 0, TERMINATED: 0 };
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof store.instances.listInstances>> = await store.instances.listInstances('acme', {
          bpmnProcessId,
          version,
          limit: 1000,
          cursor,
        });
        for (const summary of page.items) {
          byState[summary.state]++;
          const instance = (await store.instances.getInstance('acme', summary.key))!;
          for (const e of (await store.statistics.instanceStatistics('acme', instance.document)).elements) {
            const sum = summed.get(e.elementId) ?? { active: 0, incidents: 0, completed: 0, canceled: 0 };
            summed.set(e.elementId, {
              active: sum.active + e.active,
              incidents: sum.incidents + e.incidents,
              completed: sum.completed + e.completed,
              canceled: sum.canceled + e.canceled,
            });
          }
        }
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(byState.ACTIVE + byState.INCIDENT + byState.COMPLETED + byState.TERMINATED).toBeGreaterThan(0);
      expect(definition.instances).toEqual({ active: byState.ACTIVE, incidents: byState.INCIDENT, completed: byState.COMPLETED, canceled: byState.TERMINATED });
      expect(Object.fromEntries(definition.elements.map(({ elementId, ...counts }) => [elementId, counts]))).toEqual(Object.fromEntries(summed));
    }
    const incidents = await store.incidents.listIncidents('acme', { bpmnProcessId: 'onboarding', state: 'OPEN', limit: 5 });
    expect(incidents.items.length).toBeGreaterThan(0);
    expect(incidents.items.every((i) => i.bpmnProcessId === 'onboarding' && i.state === 'OPEN')).toBe(true);
  }, 120_000);

  it('measures every route against a real server, ends with the JSON line and drops its schema', async () => {
    const result = await runReadsBenchmark({ instances: 2000, samples: 2, warmup: 1, partitions: 2 });
    const names = Object.keys(result.routes);
    expect(names.length).toBeGreaterThan(15);
    for (const f of Object.values(result.routes)) {
      expect(f.samples).toBe(2);
      expect(f.p50).toBeGreaterThan(0);
      expect(f.p99).toBeGreaterThanOrEqual(f.p50);
    }
    const last = JSON.parse(formatReadsReport(result).split('\n').at(-1)!);
    expect(last).toMatchObject({ bench: 'reads', instances: 2000 });
    expect(Object.keys(last.routes)).toEqual(names);
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const left = await client.query('select 1 from information_schema.schemata where schema_name = $1', [result.schema]);
      expect(left.rowCount).toBe(0);
    } finally {
      await client.end();
    }
  }, 300_000);
});
