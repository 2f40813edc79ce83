import { expect } from 'vitest';
import { ApiError } from '../../src/shared/errors';

/** The ApiError `fn` throws; fails the test when it throws something else or nothing. */
export function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a refusal');
}
