// 64-bit keys (DESIGN §5): the partition sits in the high bits so any pod
// can route a command for an instance, job or timer without a lookup.
// Layout (63 usable bits, always positive):
//   bits 55..62  partition (0..255)
//   bits 35..54  the leader's lease epoch (mod 2^20)
//   bits  0..34  a sequence within that epoch
// A new leader always has a higher epoch than the last, so keys never repeat
// across takeovers without persisting a counter.

const PARTITION_SHIFT = 55n;
const EPOCH_SHIFT = 35n;
const EPOCH_MASK = (1n << 20n) - 1n;
const SEQUENCE_LIMIT = 2 ** 35;

export const MAX_PARTITIONS = 256;

export function partitionOfKey(key: string): number | undefined {
  if (!/^[1-9][0-9]{0,18}$/.test(key)) return undefined;
  const value = BigInt(key);
  if (value >= 1n << 63n) return undefined;
  return Number(value >> PARTITION_SHIFT);
}

export class KeyGenerator {
  private readonly base: bigint;
  private sequence = 0;

  constructor(partition: number, epoch: number) {
    this.base = (BigInt(partition) << PARTITION_SHIFT) | ((BigInt(epoch) & EPOCH_MASK) << EPOCH_SHIFT);
  }

  next = (): string => {
    if (++this.sequence >= SEQUENCE_LIMIT) throw new Error('key sequence exhausted for this epoch; the leader must re-acquire its lease');
    return (this.base + BigInt(this.sequence)).toString();
  };
}

/** FNV-1a over the text, onto a partition: stable across pods and restarts. */
export function hashToPartition(text: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash % partitions;
}

/** Client-chosen command keys are scoped by account, so two accounts' keys never collide. */
export function scoped(account: string, commandKey: string | undefined): string | undefined {
  return commandKey === undefined ? undefined : `${account}:${commandKey}`;
}
