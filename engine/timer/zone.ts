/**
 * Time-zone handling for timer dates: checking and canonicalising IANA zone
 * ids and turning a wall-clock time in a zone into an instant the way Java's
 * ZonedDateTime does, so a date reads the same here as in Camunda 8.
 */
import { DateTime, IANAZone } from 'luxon';

/** The canonical spelling of an IANA zone id (`europe/berlin` → `Europe/Berlin`), or null if unknown. */
export function canonicalZone(name: string): string | null {
  if (!IANAZone.isValidZone(name)) return null;
  // Intl knows the canonical case; luxon keeps whatever it was given.
  return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
}

/**
 * The instant of an ISO local date-time (no offset) in `zone`, or the reason
 * it is not a real date. In the hour repeated when clocks go back, luxon's
 * pick depends on the host clock (it guesses from the current offset), while
 * Java takes the earlier instant; Camunda runs on Java, so the earlier one
 * wins here, always. A time skipped when clocks go forward moves forward by
 * the gap in both.
 */
export function localToInstant(local: string, zone: string): { ok: true; at: number } | { ok: false; reason: string } {
  const inZone = DateTime.fromISO(local, { zone });
  if (!inZone.isValid) return { ok: false, reason: inZone.invalidExplanation ?? inZone.invalidReason ?? 'it is not a real date' };
  const wallAsUtc = DateTime.fromISO(local, { zone: 'utc' }).toMillis();
  const z = IANAZone.create(zone);
  let best = inZone.toMillis();
  // The offsets a day either side cover both readings of a repeated hour.
  for (const probe of [best - 86_400_000, best + 86_400_000]) {
    const offset = z.offset(probe);
    const candidate = wallAsUtc - offset * 60_000;
    if (z.offset(candidate) === offset && candidate < best) best = candidate;
  }
  return { ok: true, at: best };
}
