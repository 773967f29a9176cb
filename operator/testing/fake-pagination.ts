// Paged lists (limit and continue) with the real server's guarantee: every
// page of one list comes from the same snapshot, at the resourceVersion of
// the first page, so a client that lists in pages and then watches from that
// resourceVersion misses nothing. Snapshots are kept until compaction; a
// continue token from before compact() answers 410 Expired, as etcd's does.
import { randomUUID } from 'node:crypto';
import type { KubeObject } from './fake-selectors.ts';
import { ApiError, badRequest } from './fake-status.ts';

interface Snapshot {
  items: KubeObject[];
  resourceVersion: number;
}

export interface Page {
  items: KubeObject[];
  resourceVersion: number;
  continue?: string;
  remainingItemCount?: number;
}

export class ListSnapshots {
  private snapshots = new Map<string, Snapshot>();

  constructor(private readonly limit = 1000) {}

  /** Forgets every snapshot: their continue tokens expire. */
  compact(): void {
    this.snapshots.clear();
  }

  /** The first page of a fresh list, or the page a continue token points at. */
  page(limitParam: string | null, token: string | null, fresh: () => Snapshot): Page {
    const limit = limitParam === null ? 0 : Number(limitParam);
    if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit "${limitParam}"`);
    let id: string;
    let offset: number;
    let snapshot: Snapshot | undefined;
    if (token) {
      ({ id, offset } = this.decode(token));
      snapshot = this.snapshots.get(id);
      if (!snapshot) {
        throw new ApiError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      }
    } else {
      id = randomUUID();
      offset = 0;
      snapshot = fresh();
    }
    const end = limit > 0 ? offset + limit : snapshot.items.length;
    const items = snapshot.items.slice(offset, end);
    if (end >= snapshot.items.length) {
      this.snapshots.delete(id);
      return { items, resourceVersion: snapshot.resourceVersion };
    }
    this.snapshots.set(id, snapshot);
    while (this.snapshots.size > this.limit) this.snapshots.delete(this.snapshots.keys().next().value as string);
    return {
      items,
      resourceVersion: snapshot.resourceVersion,
      continue: Buffer.from(JSON.stringify({ id, offset: end })).toString('base64url'),
      remainingItemCount: snapshot.items.length - end,
    };
  }

  private decode(token: string): { id: string; offset: number } {
    try {
      const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { id?: unknown; offset?: unknown };
      if (typeof parsed.id === 'string' && typeof parsed.offset === 'number') return { id: parsed.id, offset: parsed.offset };
    } catch {
      // Falls through to the same answer as a well-formed token of the wrong shape.
    }
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion');
  }
}
