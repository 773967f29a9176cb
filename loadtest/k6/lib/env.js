// Script parameters from the environment (`k6 run -e RATE=100 …`, or the
// shell's own variables), read once in the init context. A bad value stops
// the run before it starts, with a message naming the variable, rather than
// turning into a NaN rate or a malformed duration halfway through a test.
/* global __ENV */

/**
 * A non-empty value, or the fallback; without a fallback the variable is required.
 * @param {string} name
 * @param {string} [fallback]
 * @returns {string}
 */
export function envString(name, fallback) {
  const value = (__ENV[name] ?? '').trim();
  if (value !== '') return value;
  if (fallback !== undefined) return fallback;
  throw new Error(`${name} is required (k6 run -e ${name}=…)`);
}

/**
 * A number within [min, max]; `integer` also refuses fractions.
 * @param {string} name
 * @param {number} fallback
 * @param {{ min?: number, max?: number, integer?: boolean }} [limits]
 * @returns {number}
 */
export function envNumber(name, fallback, limits = {}) {
  const text = (__ENV[name] ?? '').trim();
  if (text === '') return fallback;
  const value = Number(text);
  const { min = 0, max = Number.MAX_SAFE_INTEGER, integer = false } = limits;
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new Error(`${name}=${text}: must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}`);
  }
  return value;
}

/**
 * A k6 duration such as 30s, 5m or 1h30m.
 * @param {string} name
 * @param {string} fallback
 * @returns {string}
 */
export function envDuration(name, fallback) {
  const value = envString(name, fallback);
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(value)) throw new Error(`${name}=${value}: must be a k6 duration such as 30s, 5m or 1h30m`);
  return value;
}

/**
 * true/false (also 1/0, yes/no).
 * @param {string} name
 * @param {boolean} fallback
 * @returns {boolean}
 */
export function envFlag(name, fallback) {
  const text = (__ENV[name] ?? '').trim().toLowerCase();
  if (text === '') return fallback;
  if (['true', '1', 'yes'].includes(text)) return true;
  if (['false', '0', 'no'].includes(text)) return false;
  throw new Error(`${name}=${text}: must be true or false`);
}
