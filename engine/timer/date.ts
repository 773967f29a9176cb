/**
 * ISO 8601 date-times for `timeDate` and for the start and end of cycles:
 * `2026-01-01T10:00:00Z`, `…+02:00`, and a zone id either as Camunda's FEEL
 * form `…@Europe/Berlin` or Java's `…+01:00[Europe/Berlin]`. A date must say
 * where it is: without an offset or zone it would depend on the server's
 * clock settings, which Camunda rejects too.
 */
import { DateTime } from 'luxon';
import type { Parsed } from './schedule-types.ts';
import { canonicalZone, localToInstant } from './zone.ts';

export interface ParsedDate {
  at: number;
  /** Zone for calendar arithmetic: the zone id if given, else the fixed offset (`UTC`, `UTC+2`). */
  zone: string;
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)(Z|[+-]\d{2}(?::?\d{2})?)?(?:@([^@[\]\s]+)|\[([^[\]\s]+)\])?$/i;

const EXAMPLE = 'e.g. 2026-01-01T10:00:00Z, 2026-01-01T10:00:00+02:00 or 2026-01-01T10:00:00@Europe/Berlin';

export function parseIsoDateTime(text: string): Parsed<ParsedDate> {
  const m = DATE_TIME.exec(text);
  if (!m) {
    if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
      return { ok: false, reason: `it has a date but no time of day; ${EXAMPLE}` };
    }
    return { ok: false, reason: `expected a date and time with an offset or zone, ${EXAMPLE}` };
  }
  const [, local, offset, atZone, bracketZone] = m;
  const zoneId = atZone ?? bracketZone;

  let zone: string | null = null;
  if (zoneId !== undefined) {
    zone = canonicalZone(zoneId);
    if (zone === null) return { ok: false, reason: `'${zoneId}' is not a known time zone (use an IANA zone id such as Europe/Berlin)` };
  }

  if (offset !== undefined) {
    // The offset pins the instant; a zone id next to it only decides calendar arithmetic.
    const dt = DateTime.fromISO(local + offset.toUpperCase(), { setZone: true });
    if (!dt.isValid) return { ok: false, reason: explain(dt) };
    return { ok: true, value: { at: dt.toMillis(), zone: zone ?? dt.zoneName ?? 'UTC' } };
  }
  if (zone !== null) {
    const resolved = localToInstant(local, zone);
    if (!resolved.ok) return resolved;
    return { ok: true, value: { at: resolved.at, zone } };
  }
  return { ok: false, reason: `it has no time zone; add Z for UTC, an offset such as +02:00, or a zone such as @Europe/Berlin` };
}

function explain(dt: DateTime): string {
  return dt.invalidExplanation ?? dt.invalidReason ?? 'it is not a real date';
}
