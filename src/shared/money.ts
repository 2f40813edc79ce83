/** Multiplies by 10^places through the decimal string, so 1.005 stays 100.5 (no binary drift). */
function shift(value: number, places: number): number {
  const [mantissa, exponent = '0'] = String(value).split('e');
  return Number(`${mantissa}e${Number(exponent) + places}`);
}

// Fast paths scale with a multiplication; binary drift only matters when the scaled value sits
// next to a rounding boundary (x.5 for round, an integer for floor/ceil), where the exact
// decimal-string path takes over. Dividing an integer by 10^d is correctly rounded, so the
// result is the same double as parsing the decimal.
const NEAR = 1e-6;
// Below 2^28 the product is within 6e-8 of the exact decimal scaling, well inside NEAR.
const SAFE = 2 ** 28;

/** Rounds to `decimals` places, half away from zero, without binary drift (1.005 -> 1.01). */
export function round(value: number, decimals: number): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** decimals;
  const scaled = Math.abs(value) * f;
  if (scaled < SAFE && Math.abs(scaled - Math.floor(scaled) - 0.5) > NEAR) {
    return (value < 0 ? -1 : 1) * (Math.round(scaled) / f) + 0; // + 0: never -0
  }
  const sign = value < 0 ? -1 : 1;
  return sign * shift(Math.round(shift(Math.abs(value), decimals)), -decimals) + 0;
}

/** Rounds down to `decimals` places (never pays out more than was computed). */
export function floor(value: number, decimals: number): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** decimals;
  const scaled = value * f;
  if (Math.abs(scaled) < SAFE && Math.abs(scaled - Math.round(scaled)) > NEAR) return Math.floor(scaled) / f + 0;
  return shift(Math.floor(shift(value, decimals) + 1e-9), -decimals) + 0;
}

/** Rounds up to `decimals` places (never asks for less than is due). */
export function ceil(value: number, decimals: number): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** decimals;
  const scaled = value * f;
  if (Math.abs(scaled) < SAFE && Math.abs(scaled - Math.round(scaled)) > NEAR) return Math.ceil(scaled) / f + 0;
  return shift(Math.ceil(shift(value, decimals) - 1e-9), -decimals) + 0;
}

/** Sums amounts and rounds the result, so `total` equals the sum of its rounded parts. */
export function sum(values: readonly number[], decimals: number): number {
  return round(
    values.reduce((a, b) => a + b, 0),
    decimals,
  );
}

/**
 * How many decimal places `value` is written with (its shortest round-trip form).
 * @example decimalPlaces(2.385) // 3; decimalPlaces(1e-7) // 7; decimalPlaces(12) // 0
 */
export function decimalPlaces(value: number): number {
  if (!Number.isFinite(value)) return 0;
  const [mantissa = '', exponent = '0'] = String(Math.abs(value)).split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent));
}
