// Command stream entry ids, in Redis Streams' shape `<ms>-<seq>`, so both
// implementations hand the leader ids it can compare and acknowledge the same
// way. "0" (or "0-0") is before every entry.

export interface StreamId {
  ms: number;
  seq: number;
}

export function parseStreamId(id: string): StreamId {
  const match = /^(\d+)(?:-(\d+))?$/.exec(id);
  const ms = match ? Number(match[1]) : NaN;
  const seq = match?.[2] ? Number(match[2]) : 0;
  if (!Number.isSafeInteger(ms) || !Number.isSafeInteger(seq)) {
    throw new RangeError(`not a stream entry id: ${JSON.stringify(id)}`);
  }
  return { ms, seq };
}

export function formatStreamId(id: StreamId): string {
  return `${id.ms}-${id.seq}`;
}

export function compareStreamIds(a: StreamId, b: StreamId): number {
  return a.ms - b.ms || a.seq - b.seq;
}

/** Whether entry id `id` comes after `other` (both as strings; "0" is before every entry). */
export function streamIdIsAfter(id: string, other: string): boolean {
  return compareStreamIds(parseStreamId(id), parseStreamId(other)) > 0;
}

/** The smallest id after `id` (what XTRIM MINID takes to drop `id` itself). */
export function nextStreamId(id: StreamId): StreamId {
  return { ms: id.ms, seq: id.seq + 1 };
}
