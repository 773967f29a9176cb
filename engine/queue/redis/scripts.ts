// Loads the Lua scripts (one per file in ./scripts, each documenting its
// KEYS, ARGV and return value) and defines them as ioredis commands, which
// run them with EVALSHA and fall back to EVAL when Redis lost its script
// cache (restart, SCRIPT FLUSH).
import { readFileSync } from 'node:fs';
import type { Redis, Result } from 'ioredis';

type Arg = string | number;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    orcaPushJobs(seqKey: string, ...args: Arg[]): Result<number, Context>;
    orcaActivateJobs(queueKey: string, activeKey: string, ...args: Arg[]): Result<string[], Context>;
    orcaRemoveJobs(activeKey: string, ...args: Arg[]): Result<number, Context>;
    orcaRequeueJob(seqKey: string, activeKey: string, ...args: Arg[]): Result<number, Context>;
    orcaUpdateVariables(jobKey: string, variablesJson: string): Result<number, Context>;
    orcaRebuildUpsert(seqKey: string, activeKey: string, stagingKey: string, ...args: Arg[]): Result<[number, number], Context>;
    orcaRebuildFinish(partitionKey: string, stagingKey: string, activeKey: string, ...args: Arg[]): Result<[number, number], Context>;
    orcaAppendIfBelow(streamKey: string, ...args: Arg[]): Result<string | null, Context>;
  }
}

const scripts = {
  orcaPushJobs: { file: 'push-jobs.lua', numberOfKeys: 1 },
  orcaActivateJobs: { file: 'activate-jobs.lua', numberOfKeys: 2 },
  orcaRemoveJobs: { file: 'remove-jobs.lua', numberOfKeys: 1 },
  orcaRequeueJob: { file: 'requeue-job.lua', numberOfKeys: 2 },
  orcaUpdateVariables: { file: 'update-variables.lua', numberOfKeys: 1 },
  orcaRebuildUpsert: { file: 'rebuild-upsert.lua', numberOfKeys: 3 },
  orcaRebuildFinish: { file: 'rebuild-finish.lua', numberOfKeys: 3 },
  orcaAppendIfBelow: { file: 'append-if-below.lua', numberOfKeys: 1 },
} as const;

let sources: Map<string, string> | undefined;

function load(): Map<string, string> {
  if (!sources) {
    sources = new Map();
    for (const [name, { file }] of Object.entries(scripts)) {
      sources.set(name, readFileSync(new URL(`./scripts/${file}`, import.meta.url), 'utf8'));
    }
  }
  return sources;
}

export function defineQueueScripts(redis: Redis): void {
  const lua = load();
  for (const [name, { numberOfKeys }] of Object.entries(scripts)) {
    redis.defineCommand(name, { lua: lua.get(name)!, numberOfKeys });
  }
}
