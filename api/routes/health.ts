// Operations probes for Kubernetes: GET /healthz says the process is alive
// (liveness: restart it if this fails), GET /readyz says this pod can serve
// (readiness: take it out of the load balancer if not). Ready means
// Postgres answers a query on Orca's own tables (so the schema is migrated),
// Redis, when configured, answers PING, and every partition this process
// leads can commit. A failing check is a 503 problem
// naming the dependency; the cause goes to the log, not to this
// unauthenticated response, which must not leak hosts or SQL.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type Engine, pendingMigrations, StoreUnavailableError } from '../../engine/index.ts';
import { route } from '../openapi/route.ts';
import { ApiError } from '../problem.ts';
import type { RegisterRoutes } from './index.ts';

const TAGS = ['operations'];

/** A probe slower than this counts as failed: a readiness check must answer within the kubelet's timeout. */
const CHECK_TIMEOUT_MS = 2_000;
/** A partition whose leader has failed to commit this long counts as stalled; a single failed batch recovers well within it. */
const STALLED_AFTER_MS = 1_000;

// SQLSTATEs meaning "the database answers, but Orca's schema is not (fully) there".
const SCHEMA_MISSING = new Set(['42P01' /* undefined_table */, '42703' /* undefined_column */, '3F000' /* invalid_schema_name */]);

type CheckStatus = 'up' | 'down' | 'not-configured';

interface Check {
  status: CheckStatus;
  /** Why it is down, in words safe to show anyone. */
  reason?: string;
}

export interface Readiness {
  ready: boolean;
  checks: { postgres: Check; migrations: Check; redis: Check; partitions: Check };
}

class CheckTimeout extends Error {}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  // The abandoned call may still settle later; it must not become an unhandled rejection.
  work.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function sqlState(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    if (current.cause === current) break;
  }
  return undefined;
}

function down(error: unknown, what: string): Check {
  if (error instanceof CheckTimeout) return { status: 'down', reason: `${what} did not answer within ${CHECK_TIMEOUT_MS} ms` };
  if (error instanceof StoreUnavailableError) return { status: 'down', reason: `${what} is unreachable` };
  return { status: 'down', reason: `${what} query failed` };
}

async function checkDatabase(engine: Engine, log: FastifyBaseLogger): Promise<Pick<Readiness['checks'], 'postgres' | 'migrations'>> {
  try {
    // A real read of a migrated table: proves the connection, the search_path and the schema at once.
    await withTimeout(engine.store.leases.listLeases(), CHECK_TIMEOUT_MS);
    const pending = await withTimeout(pendingMigrations(engine.store.db), CHECK_TIMEOUT_MS);
    if (pending > 0) return { postgres: { status: 'up' }, migrations: { status: 'down', reason: `${pending} committed migration(s) are not applied` } };
    return { postgres: { status: 'up' }, migrations: { status: 'up' } };
  } catch (error) {
    const state = sqlState(error);
    if (state !== undefined && SCHEMA_MISSING.has(state)) {
      log.warn({ err: error }, 'readiness: Orca schema missing');
      return { postgres: { status: 'up' }, migrations: { status: 'down', reason: 'the Orca schema is missing or outdated: migrations are not applied' } };
    }
    log.warn({ err: error }, 'readiness: database check failed');
    return { postgres: down(error, 'the database'), migrations: { status: 'down', reason: 'unknown while the database is down' } };
  }
}

async function checkRedis(engine: Engine, log: FastifyBaseLogger): Promise<Check> {
  if (engine.queues.kind !== 'redis') return { status: 'not-configured' };
  try {
    await withTimeout(engine.queues.ping(), CHECK_TIMEOUT_MS);
    return { status: 'up' };
  } catch (error) {
    log.warn({ err: error }, 'readiness: Redis check failed');
    return down(error, 'Redis');
  }
}

function checkPartitions(engine: Engine): Check {
  if (engine.ownedPartitions().length === 0) return { status: 'not-configured' };
  const stalled = engine.stalledPartitions(STALLED_AFTER_MS);
  if (stalled.length === 0) return { status: 'up' };
  return { status: 'down', reason: `partition${stalled.length > 1 ? 's' : ''} ${stalled.join(', ')} led here cannot commit` };
}

export async function readiness(engine: Engine, log: FastifyBaseLogger): Promise<Readiness> {
  const [database, redis] = await Promise.all([checkDatabase(engine, log), checkRedis(engine, log)]);
  const checks = { ...database, redis, partitions: checkPartitions(engine) };
  return { ready: Object.values(checks).every((c) => c.status !== 'down'), checks };
}

const checkSchema = z.object({ status: z.enum(['up', 'down', 'not-configured']), reason: z.string().optional() });

export const register: RegisterRoutes = async (app, ctx) => {
  registerProbes(app, ctx.engine);
};

/** The two probes, for the API server and for the engine role's own listener (engine-service.ts). */
export function registerProbes(app: FastifyInstance, engine: Engine): void {
  route(
    app,
    {
      method: 'GET',
      path: '/healthz',
      summary: 'Liveness: the process is up and serving HTTP. Checks no dependency.',
      tags: TAGS,
      auth: 'none',
      response: { status: 200, schema: z.object({ status: z.literal('ok') }) },
    },
    async () => ({ status: 'ok' as const }),
  );

  route(
    app,
    {
      method: 'GET',
      path: '/readyz',
      summary:
        'Readiness: Postgres answers, migrations are applied, Redis (when configured) answers PING, and every partition this pod leads can commit. 503 names what failed.',
      tags: TAGS,
      auth: 'none',
      response: {
        status: 200,
        schema: z.object({
          status: z.literal('ready'),
          checks: z.object({ postgres: checkSchema, migrations: checkSchema, redis: checkSchema, partitions: checkSchema }),
        }),
      },
      errors: [503],
    },
    async (_input, request) => {
      const result = await readiness(engine, request.log);
      if (!result.ready) {
        const failed = Object.entries(result.checks)
          .filter(([, check]) => check.status === 'down')
          .map(([name]) => name);
        const reasons = failed.map((name) => `${name}: ${result.checks[name as keyof Readiness['checks']].reason ?? 'down'}`);
        throw new ApiError('UNAVAILABLE', `Not ready. ${reasons.join('; ')}.`, { failed, checks: result.checks, retryAfterSeconds: 5 });
      }
      return { status: 'ready' as const, checks: result.checks };
    },
  );
}
