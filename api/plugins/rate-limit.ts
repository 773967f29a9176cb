// Per-account rate limits (DESIGN §5): every authenticated request takes a
// token from its account's bucket, so an API key, the short-lived tokens
// minted from it and the tokens of the account's agents and apps share one
// budget, and rotating a key or token does not reset it.
// An empty bucket is a 429 problem with Retry-After. Buckets live in Redis
// when there is one (shared by all API pods) and in this process otherwise.
// The limit protects the service, it is not a dependency of it: when Redis
// does not answer, requests pass (and the log says so).
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { ApiError } from '../problem.ts';
import { LocalTokenBuckets, RedisTokenBuckets, type TokenBuckets } from './rate-limit-buckets.ts';

export const rateLimitOptions = z.object({
  /** Sustained requests per second per account; 0 turns the limit off. (Defaults: the configuration's, api/config.ts.) */
  perSecond: z.number().min(0),
  /** Requests an account may make at once after a quiet spell. */
  burst: z.number().int().min(1),
  /** Absent: buckets in this process. */
  redisUrl: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** Same prefix as the queues', so one installation's keys sit together. */
  prefix: z.string().regex(/^[^{}\s]*$/, 'must not contain "{", "}" or whitespace'),
  /** How long a bucket lookup may take before the request passes unlimited. */
  redisTimeoutMs: z.number().int().min(1).default(500),
});

export type RateLimitOptions = z.input<typeof rateLimitOptions>;

/** A Redis connection for token buckets: while Redis is away, calls fail at once (and callers let requests pass) rather than queue. */
export async function connectBucketsRedis(url: string, timeoutMs: number, name = 'orca-rate-limit'): Promise<Redis> {
  // Loaded only when used, like the queues' client: the embedded default never needs it.
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    connectionName: name,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
  });
  // Errors surface on the calls; without a listener ioredis would print each reconnect attempt.
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`rate limit: cannot reach Redis: ${(error as Error).message}`, { cause: error });
  }
  return redis;
}

async function openBuckets(options: z.output<typeof rateLimitOptions>): Promise<TokenBuckets> {
  const limits = { perSecond: options.perSecond, burst: options.burst };
  if (!options.redisUrl) return new LocalTokenBuckets(limits);
  return new RedisTokenBuckets(await connectBucketsRedis(options.redisUrl, options.redisTimeoutMs), options.prefix, limits);
}

/** Takes one request from the account's bucket, or throws ApiError RATE_LIMITED. */
export type AccountLimit = (account: string, log: FastifyBaseLogger) => Promise<void>;

/**
 * Adds the limit as a preHandler. Register it after the auth hook: it keys
 * on request.account, which only authenticated routes have. Returns the
 * limit itself for calls that name their account otherwise (MCP tools,
 * whose account comes from the agent session in their arguments).
 */
export async function registerRateLimit(app: FastifyInstance, input: RateLimitOptions | false): Promise<AccountLimit | undefined> {
  if (input === false) return undefined;
  const options = rateLimitOptions.parse(input);
  if (options.perSecond === 0) return undefined;
  const buckets = await openBuckets(options);
  app.addHook('onClose', async () => buckets.close());
  let lastWarning = 0;

  const limit: AccountLimit = async (account, log) => {
    let take;
    try {
      take = await buckets.take(account);
    } catch (error) {
      // Once a minute is enough to tell the operator; the limit is off until Redis answers.
      if (Date.now() - lastWarning > 60_000) {
        lastWarning = Date.now();
        log.warn({ err: error }, 'rate limit: Redis did not answer; requests pass unlimited');
      }
      return;
    }
    if (take.allowed) return;
    const seconds = Math.max(1, Math.ceil(take.retryAfterMs / 1000));
    throw new ApiError('RATE_LIMITED', `This account may make ${options.perSecond} requests per second (bursts of ${options.burst}); retry in ${seconds} s.`, {
      retryAfterSeconds: seconds,
    });
  };

  app.addHook('preHandler', async (request) => {
    // Agents' and apps' calls count against their account as its own do.
    const auth = request.routeOptions.config?.auth;
    if (auth === undefined || auth === 'none' || request.account === '') return;
    await limit(request.account, request.log);
  });
  return limit;
}
