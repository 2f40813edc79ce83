import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as z from 'zod';
import { ApiError } from '../../shared/errors';
import { parseOrThrow } from '../../shared/validation';
import { IncludeQuerySchema, ListQuerySchema } from '../../orders/model';
import { RequestsQuerySchema } from '../inspector/request-log.schemas';
import { queryParser } from './query-parse';
import { seeded } from '../../../test/support/property';

/** Guard test of docs/decisions/016-empty-query-parsed-once.md. */
describe('queryParser', () => {
  it("answers an empty query with the schema's own answer to {}, kept and frozen, for the sandbox's query schemas", () => {
    for (const schema of [IncludeQuerySchema, ListQuerySchema, RequestsQuerySchema] as z.ZodType[]) {
      const parse = queryParser(schema);
      const first = parse('', () => expect.unreachable('an empty query is not read'));
      expect(first).toEqual(parseOrThrow(schema, {}));
      expect(parse('', () => ({}))).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);
      expect(() => {
        (first as Record<string, unknown>).page = 99;
      }).toThrow(TypeError);
    }
  });

  it('parses any other query as it comes, as parseOrThrow does (seeded)', () => {
    const schema = z.object({ page: z.coerce.number().int().min(1).default(1), q: z.string().max(5).optional() });
    const parse = queryParser(schema);
    parse('', () => ({}));
    fc.assert(
      fc.property(
        fc.record(
          { page: fc.oneof(fc.nat().map(String), fc.string({ maxLength: 4 })), q: fc.string({ maxLength: 8 }) },
          { requiredKeys: [] },
        ),
        (query) => {
          const querystring = new URLSearchParams(query as Record<string, string>).toString() || '?';
          let expected: unknown;
          try {
            expected = parseOrThrow(schema, query);
          } catch (error) {
            expect(() => parse(querystring, () => query)).toThrow((error as ApiError).message);
            return;
          }
          expect(parse(querystring, () => query)).toEqual(expected);
        },
      ),
      seeded({ numRuns: 500 }),
    );
  });

  it('keeps nothing from a failure: a schema that refuses {} answers its 422 every time', () => {
    const parse = queryParser(z.object({ fiat: z.string().min(1) }));
    for (let i = 0; i < 3; i++) {
      const error = (() => {
        try {
          parse('', () => ({}));
        } catch (caught) {
          return caught as ApiError;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ApiError);
      expect(error?.code).toBe('E_VALIDATION_ERROR');
      expect(error?.message).toMatch(/^fiat: /);
    }
    expect(parse('fiat=NGN', () => ({ fiat: 'NGN' }))).toEqual({ fiat: 'NGN' });
  });
});
