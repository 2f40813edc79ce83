/**
 * The whole input as a key, or undefined when it is not plain data (a function, a class
 * instance, a symbol…): two inputs of one key are the same data, so xstate computes the same
 * first step for both. Numbers that JSON would blur (NaN, ±Infinity, -0) and `undefined` are
 * written apart.
 */
export function inputKey(input: unknown): string | undefined {
  const fast = simpleKey(input, 0);
  return fast === NOT_SIMPLE ? jsonKey(input) : fast;
}

/** What `simpleKey` answers for data it leaves to `jsonKey`. */
const NOT_SIMPLE = '\u0000not simple';

/**
 * `jsonKey`'s answer for the inputs the orders give (a plain object of numbers, strings, booleans,
 * null, undefined and plain objects of those, two levels deep), written directly: JSON.stringify
 * with a replacer function is ~2% of a create. Anything else is left to `jsonKey`;
 * `machine.runner.test.ts` holds the two equal on any value (seeded).
 */
function simpleKey(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) ? JSON.stringify(value) : NOT_SIMPLE;
    case 'undefined':
      return depth === 0 ? NOT_SIMPLE : UNDEFINED_KEY;
    case 'object': {
      if (value === null) return 'null';
      if (depth >= 2 || Object.getPrototypeOf(value) !== Object.prototype) return NOT_SIMPLE;
      let out = '{';
      let first = true;
      for (const key of Object.keys(value)) {
        if (key === 'toJSON') return NOT_SIMPLE;
        const part = simpleKey((value as Record<string, unknown>)[key], depth + 1);
        if (part === NOT_SIMPLE) return NOT_SIMPLE;
        out += `${first ? '' : ','}${JSON.stringify(key)}:${part}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      return NOT_SIMPLE;
  }
}

const UNDEFINED_KEY = JSON.stringify('\u0000undefined');

/** The whole input as JSON with what JSON would blur written apart; undefined when not plain data. */
export function jsonKey(input: unknown): string | undefined {
  let plain = true;
  const key = JSON.stringify(input, function (this: Record<string, unknown>, name, value: unknown) {
    // The value before any `toJSON` (a Date's would pass as a string).
    const raw = this[name];
    if (!Object.is(raw, value)) {
      plain = false;
      return null;
    }
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        return Number.isFinite(value) && !Object.is(value, -0) ? value : `\u0000${String(Object.is(value, -0) ? '-0' : value)}`;
      case 'undefined':
        return '\u0000undefined';
      case 'object': {
        if (value === null || Array.isArray(value)) return value;
        const proto = Object.getPrototypeOf(value);
        if (proto === Object.prototype || proto === null) return value;
        plain = false;
        return null;
      }
      default:
        plain = false;
        return null;
    }
  });
  return plain ? key : undefined;
}
