/**
 * Freezes plain data through and through (objects and arrays, every level), and returns it:
 * data handed to many readers (fixtures, an order's terms, a route's parsed empty query) that
 * none of them may change. Already-frozen parts are left as they are.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
