// Noticing that Redis lost a partition's fast-path state (FLUSHALL, a
// failover to an empty replica, a restart without persistence) while its
// leader keeps running (DESIGN §1: "If Redis is flushed, a partition leader
// rebuilds its queues from Postgres"). The leader writes a marker key for its
// partition BEFORE it rebuilds the queues, and checks now and then that the
// marker is still there: if it is gone, whatever was pushed before may be
// gone too, and the leader rebuilds again. Setting it before the rebuild
// means a flush at any moment is either undone by that rebuild or noticed.
// The key sits beside the partition's command stream under the same hash tag.

export interface FlushMarker {
  /** Writes the partition's marker (before rebuilding its queues). */
  set(partition: number, epoch: number): Promise<void>;
  /** False when the marker is gone: Redis lost data since `set`. */
  present(partition: number): Promise<boolean>;
  close(): Promise<void>;
}

/** The in-process queues cannot be flushed behind the leader's back. */
export const NO_FLUSH_MARKER: FlushMarker = {
  set: async () => {},
  present: async () => true,
  close: async () => {},
};

export async function createRedisFlushMarker(redisUrl: string, prefix: string): Promise<FlushMarker> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { connectionName: 'orca-flush-marker' });
  const key = (partition: number) => `${prefix}{p${partition}}:leader`;
  try {
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  return {
    async set(partition, epoch) {
      await redis.set(key(partition), String(epoch));
    },
    async present(partition) {
      return (await redis.exists(key(partition))) === 1;
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
