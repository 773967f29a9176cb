import { afterEach, describe, expect, it } from 'vitest';
import { firstDue, nextDue } from './index.ts';
import { firings, parseError, schedule } from './test-helpers.ts';

// 1 January 2026 is a Thursday.
const THU = Date.UTC(2026, 0, 1, 0, 0, 0);
const due = (text: string, now: number) => firstDue(schedule('cycle', text), now);

describe('timeCycle as cron expression', () => {
  it('walks an hour range on weekdays only', () => {
    const s = schedule('cycle', '0 0 9-17 * * MON-FRI');
    expect(firstDue(s, Date.UTC(2026, 0, 1, 8, 30))).toBe(Date.UTC(2026, 0, 1, 9));
    expect(nextDue(s, Date.UTC(2026, 0, 1, 9), 1)).toBe(Date.UTC(2026, 0, 1, 10));
    // Thursday 17:00 → Friday 09:00; Friday 17:00 → Monday 09:00.
    expect(nextDue(s, Date.UTC(2026, 0, 1, 17), 9)).toBe(Date.UTC(2026, 0, 2, 9));
    expect(nextDue(s, Date.UTC(2026, 0, 2, 17), 18)).toBe(Date.UTC(2026, 0, 5, 9));
  });

  it('steps minutes and accepts ? for the day of week', () => {
    const s = schedule('cycle', '0 */5 * * * ?');
    expect(firings(s, Date.UTC(2026, 0, 1, 10, 2, 30), 3)).toEqual([Date.UTC(2026, 0, 1, 10, 5), Date.UTC(2026, 0, 1, 10, 10), Date.UTC(2026, 0, 1, 10, 15)]);
  });

  it('accepts ? for the day of month', () => {
    expect(due('0 0 9 ? * MON', THU)).toBe(Date.UTC(2026, 0, 5, 9));
  });

  it('reads a five-field expression with second 0', () => {
    const s = schedule('cycle', '30 9 * * 1');
    expect(s).toEqual({ kind: 'cron', text: '30 9 * * 1', expression: '0 30 9 * * 1', zone: 'UTC' });
    expect(firstDue(s, THU)).toBe(Date.UTC(2026, 0, 5, 9, 30));
    expect(due('*/15 * * * *', Date.UTC(2026, 0, 1, 10, 7, 12))).toBe(Date.UTC(2026, 0, 1, 10, 15));
  });

  it('fires strictly after now, also when now is on a match or between seconds', () => {
    expect(due('0 0 9 * * *', Date.UTC(2026, 0, 1, 9))).toBe(Date.UTC(2026, 0, 2, 9));
    expect(due('0 0 9 * * *', Date.UTC(2026, 0, 1, 8, 59, 59, 500))).toBe(Date.UTC(2026, 0, 1, 9));
    expect(due('* * * * * *', Date.UTC(2026, 0, 1, 9, 0, 0, 1))).toBe(Date.UTC(2026, 0, 1, 9, 0, 1));
  });

  it('reads day and month names in any case, and 0 or 7 for Sunday', () => {
    expect(due('0 0 12 * * sun', THU)).toBe(Date.UTC(2026, 0, 4, 12));
    expect(due('0 0 12 * * 0', THU)).toBe(Date.UTC(2026, 0, 4, 12));
    expect(due('0 0 12 * * 7', THU)).toBe(Date.UTC(2026, 0, 4, 12));
    expect(due('0 0 0 1 JAN,JUL ?', THU)).toBe(Date.UTC(2026, 6, 1));
  });

  it('requires both day fields to match when both are given, as Spring does', () => {
    // Friday the 13th: February, March and November in 2026.
    const s = schedule('cycle', '0 0 0 13 * FRI');
    expect(firings(s, THU, 3)).toEqual([Date.UTC(2026, 1, 13), Date.UTC(2026, 2, 13), Date.UTC(2026, 10, 13)]);
  });

  it('finds a rare combination of day fields', () => {
    // 29 February on a Monday: 2044 is the next one after 2026.
    expect(due('0 0 0 29 2 MON', THU)).toBe(Date.UTC(2044, 1, 29));
  });

  it('supports L for the last day of the month, leap years included', () => {
    expect(due('0 0 0 L * ?', Date.UTC(2024, 1, 1))).toBe(Date.UTC(2024, 1, 29));
    expect(due('0 0 0 L * ?', Date.UTC(2026, 1, 1))).toBe(Date.UTC(2026, 1, 28));
  });

  it('supports # for the nth weekday of the month', () => {
    expect(due('0 0 10 ? * MON#2', THU)).toBe(Date.UTC(2026, 0, 12, 10));
  });

  it('expands Spring macros', () => {
    expect(schedule('cycle', '@daily')).toMatchObject({ expression: '0 0 0 * * *' });
    expect(due('@daily', Date.UTC(2026, 0, 1, 10))).toBe(Date.UTC(2026, 0, 2));
    expect(due('@hourly', Date.UTC(2026, 0, 1, 10, 20))).toBe(Date.UTC(2026, 0, 1, 11));
    expect(due('@weekly', THU)).toBe(Date.UTC(2026, 0, 4));
  });

  it('never runs out', () => {
    const s = schedule('cycle', '0 0 0 1 1 *');
    expect(nextDue(s, Date.UTC(2026, 0, 1), 10_000)).toBe(Date.UTC(2027, 0, 1));
  });

  it('skips matches already past when now is given', () => {
    const s = schedule('cycle', '0 0 * * * *');
    expect(nextDue(s, Date.UTC(2026, 0, 1, 1), 2, Date.UTC(2026, 0, 1, 5, 30))).toBe(Date.UTC(2026, 0, 1, 6));
    expect(nextDue(s, Date.UTC(2026, 0, 1, 1), 2, Date.UTC(2026, 0, 1, 1, 30))).toBe(Date.UTC(2026, 0, 1, 2));
  });

  describe('in a process with another local time zone', () => {
    const saved = process.env.TZ;
    afterEach(() => {
      process.env.TZ = saved;
    });

    it('still computes in UTC', () => {
      process.env.TZ = 'Asia/Tokyo';
      expect(due('0 0 9 * * *', THU)).toBe(Date.UTC(2026, 0, 1, 9));
      expect(firstDue(schedule('duration', 'P1D'), THU)).toBe(Date.UTC(2026, 0, 2));
    });
  });

  describe('rejects', () => {
    const bad = (text: string, why: string) => expect(parseError('cycle', text)).toBe(`'${text}' is not a valid cron expression: ${why}.`);

    it('garbage', () => {
      bad('every monday', 'expected 6 fields (second minute hour day-of-month month day-of-week) or 5 without the seconds, but found 2');
      bad('every day at nine am', "'every' is not a valid value for its field");
      bad('0 0 9 * * funday', "it contains 'fun', which is not a month or day name (JAN-DEC, SUN-SAT)");
      bad('0 0 % * * *', "'%' is not a valid value for its field");
    });
    it('too few or too many fields', () => {
      bad('* * *', 'expected 6 fields (second minute hour day-of-month month day-of-week) or 5 without the seconds, but found 3');
      bad('0 0 0 * * * 2026', 'expected 6 fields (second minute hour day-of-month month day-of-week) or 5 without the seconds, but found 7');
    });
    it('values out of range', () => bad('60 * * * * *', 'constraint error, got value 60 expected range 0-59'));
    it('dates that never occur', () => bad('0 0 0 30 2 ?', 'its day-of-month never occurs in its months (such as 30 February), so it would never fire'));
    it('H, which would pick a random time', () => bad('H 0 0 * * *', "the second field 'H' uses H, which is not supported"));
    it('? outside the day fields', () => bad('0 ? * * * *', "the minute field '?' uses ?, which is only allowed for day-of-month and day-of-week"));
    it('W, which cron-parser cannot evaluate', () =>
      bad('0 0 0 15W * ?', "'15W' is not a valid value for its field (W, the nearest weekday, is not supported)"));
    it('macros Camunda does not know', () => bad('@weekdays', 'unknown macro; use one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly'));
  });
});
