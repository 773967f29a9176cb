// Column types shared by the store's tables. Keys are 64-bit integers with
// the partition in the high bits, so they do not fit a JS number: they are
// stored as int8 and handed around as decimal strings. node-postgres already
// returns int8 as a string; PGlite returns a number or a bigint, which the
// mapper below normalises.
import { customType, timestamp } from 'drizzle-orm/pg-core';

/** An int8 column read and written as a decimal string. */
export const key = customType<{ data: string; driverData: string | number | bigint }>({
  dataType() {
    return 'bigint';
  },
  toDriver(value) {
    return value;
  },
  fromDriver(value) {
    return String(value);
  },
});

/** A timestamptz column read and written as a Date. */
export function instant(name: string) {
  return timestamp(name, { withTimezone: true, mode: 'date' });
}
