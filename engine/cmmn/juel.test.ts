import { describe, expect, it } from 'vitest';
import { isJuel, juelToFeel } from './juel.ts';

describe('juelToFeel', () => {
  it.each([
    ['${value >= 100}', 'value >= 100'],
    ['${a == "x" && b != 2}', 'a = "x" and b != 2'],
    ['${approved eq true or amount gt 5.5}', 'approved = true or amount > 5.5'],
    ['${!done}', 'not(done)'],
    ['${order.total < 10}', 'order.total < 10'],
    ["#{status == 'open'}", 'status = "open"'],
  ])('rewrites %s', (juel, feel) => {
    expect(isJuel(juel)).toBe(true);
    expect(juelToFeel(juel)).toEqual({ ok: true, feel });
  });

  it.each(['${x.size() > 0}', '${empty list}', '${a ? b : c}', '${!(a && b)}', '${}'])('refuses %s, saying to write FEEL', (juel) => {
    const result = juelToFeel(juel);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain('Write the condition in FEEL');
  });
});
