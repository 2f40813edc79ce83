import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration';

describe('parseDuration', () => {
  it('reads the control API forms', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
  });

  it('rejects anything else', () => {
    for (const bad of ['', '5', 'm', '5 minutes', '-5m', '5x', '1h 30m']) expect(parseDuration(bad)).toBeUndefined();
  });
});
