// A partition's leader (partition-leader.ts), as the shard and the engine's command client use it.
export { PartitionLeader, type LeaderOptions } from './partition-leader.ts';
export { LeaderGone } from './intake.ts';
