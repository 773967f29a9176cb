import { afterEach, describe, expect, it, vi } from 'vitest';
import { firstDue, nextDue, parseTimer, type TimerType } from './index.ts';
import { firings, schedule } from './test-helpers.ts';

describe('parseTimer', () => {
  it('names each empty timer definition', () => {
    expect(parseTimer('duration', '   ')).toEqual({
      ok: false,
      error: 'The timer duration is empty: expected an ISO 8601 duration such as PT10S or P1D.',
    });
    expect(parseTimer('date', '\n')).toEqual({
      ok: false,
      error: 'The timer date is empty: expected an ISO 8601 date-time such as 2026-01-01T10:00:00Z.',
    });
    expect(parseTimer('cycle', '')).toEqual({
      ok: false,
      error: 'The timer cycle is empty: expected a repeating interval such as R5/PT10S or a cron expression such as 0 0 9 * * MON-FRI.',
    });
  });

  it('asks for FEEL expressions to be evaluated first', () => {
    expect(parseTimer('duration', '=delay')).toEqual({
      ok: false,
      error: "'=delay' is a FEEL expression; evaluate it first and parse the resulting text.",
    });
  });

  it('rejects values that are not text or types that are not timers', () => {
    expect(parseTimer('duration', 10 as unknown as string)).toEqual({ ok: false, error: 'The timer duration must be text.' });
    expect(parseTimer('interval' as TimerType, 'PT1S')).toEqual({
      ok: false,
      error: "'interval' is not a timer type; expected duration, date or cycle.",
    });
  });

  it('keeps the trimmed text in the schedule', () => {
    expect(parseTimer('cycle', '  R/PT1H ')).toMatchObject({ ok: true, schedule: { kind: 'cycle', text: 'R/PT1H' } });
  });
});

describe('purity', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const NOW = Date.UTC(2026, 0, 1, 0, 0, 0);

  function everything(): unknown {
    const date = schedule('date', '2026-10-25T02:30:00@Europe/Berlin');
    return {
      duration: firstDue(schedule('duration', 'P1M'), NOW),
      date: firstDue(date, NOW),
      cycle: firings(schedule('cycle', 'R3/2026-03-28T09:00:00@Europe/Berlin/P1D'), NOW),
      cron: firings(schedule('cycle', '0 0 9 * * MON-FRI'), NOW, 3),
      next: nextDue(schedule('cycle', 'R/PT1H'), NOW, 1),
    };
  }

  it('gives the same answers whatever the host clock says', () => {
    const expected = {
      duration: Date.UTC(2026, 1, 1),
      date: Date.UTC(2026, 9, 25, 0, 30),
      cycle: [Date.UTC(2026, 2, 28, 8), Date.UTC(2026, 2, 29, 7), Date.UTC(2026, 2, 30, 7)],
      cron: [Date.UTC(2026, 0, 1, 9), Date.UTC(2026, 0, 2, 9), Date.UTC(2026, 0, 5, 9)],
      next: Date.UTC(2026, 0, 1, 1),
    };
    vi.useFakeTimers();
    // Winter and summer: luxon guesses offsets from the current time, which must not leak into results.
    vi.setSystemTime(Date.UTC(2030, 0, 15));
    expect(everything()).toEqual(expected);
    vi.setSystemTime(Date.UTC(2030, 6, 15));
    expect(everything()).toEqual(expected);
  });
});
