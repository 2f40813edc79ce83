import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import * as z from 'zod';
import { compiledOf, firstIssue, parseOrThrow } from './validation';
import { ApiError } from './errors';
import { CreateOrderBodySchema, CryptoRecipientSchema, FiatRecipientSchema, QuoteBodySchema } from '../orders/model';
import { seeded } from '../../test/support/property';

/** What zod's own parser answers: the output, or parseOrThrow's 422 message for its first issue. */
function runtime(schema: z.ZodType, input: unknown): { data: unknown } | { message: string } {
  const result = schema.safeParse(input);
  if (result.success) return { data: result.data };
  const { path, message } = firstIssue(result.error);
  return { message: `${path || 'body'}: ${message}` };
}

function throughParseOrThrow(schema: z.ZodType, input: unknown): { data: unknown } | { message: string } {
  try {
    return { data: parseOrThrow(schema, input) };
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return { message: (error as ApiError).message };
  }
}

const validOfframp = {
  from: { currency: ' usdt ', network: 'Base-Sepolia', amount: 100 },
  to: { currency: 'NGN' },
  recipient: { institution_code: '058', account_number: '0123456789', account_name: 'ADA OBI' },
  customer: { reference: 'cus_1', name: 'Ada Obi', email: 'ada@example.com' },
};

/** Guard test of docs/decisions/022-schemas-compiled.md. */
describe('parseOrThrow with compiled schemas', () => {
  it("compiles the create path's schemas whole: none falls back to zod's runtime parser for a valid body", () => {
    // z.compile refuses, with strict, a schema its generated code cannot model (an async check,
    // a feature it does not know); without strict it would hand the schema back uncompiled and
    // every create would quietly run the slower parser again.
    for (const schema of [CreateOrderBodySchema, FiatRecipientSchema, CryptoRecipientSchema, QuoteBodySchema] as z.ZodType[]) {
      expect(() => z.compile(schema, { strict: true })).not.toThrow();
      const fast = compiledOf(schema);
      expect(fast).not.toBe(schema);
      expect(compiledOf(schema)).toBe(fast); // compiled once, and kept
    }
  });

  it('parses a schema at its first parse as it is, and with its compiled clone from its second on', () => {
    const schema = z.object({ currency: z.string().trim().toUpperCase(), amount: z.number().gt(0) });
    const runtimeParse = vi.spyOn(schema, 'safeParse');
    expect(parseOrThrow(schema, { currency: ' usdt ', amount: 1 })).toEqual({ currency: 'USDT', amount: 1 });
    expect(runtimeParse).toHaveBeenCalledTimes(1); // the first parse: nothing compiled for a schema parsed once
    runtimeParse.mockRestore(); // (a clone made from a spied schema would carry the spy)
    expect(parseOrThrow(schema, { currency: 'ngn', amount: 2 })).toEqual({ currency: 'NGN', amount: 2 });
    const fast = compiledOf(schema); // made by the second parse, and kept
    expect(fast).not.toBe(schema);
    const compiledParse = vi.spyOn(fast, 'safeParse');
    try {
      expect(parseOrThrow(schema, { currency: 'eth', amount: 3 })).toEqual({ currency: 'ETH', amount: 3 });
      expect(() => parseOrThrow(schema, { currency: 'eth', amount: 0 })).toThrow(/^amount: /);
      expect(compiledParse).toHaveBeenCalledTimes(2);
    } finally {
      compiledParse.mockRestore();
    }
  });

  it("answers what zod's runtime parser answers: the same output, the same first issue (seeded)", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('', ' ', 'USDT', 'ngn', 'base-sepolia', 'ada@example.com', 'not-an-email', '0123456789', '12345'),
    );
    const value = fc.oneof(
      text,
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.array(fc.nat(), { maxLength: 2 }),
    );
    const leg = fc.record(
      { currency: fc.oneof(text, value), network: fc.oneof(text, value), amount: fc.oneof(fc.double({ min: -1, max: 2e12 }), value) },
      { requiredKeys: [] },
    );
    const body = fc.record(
      {
        from: fc.oneof(leg, value),
        to: fc.oneof(leg, value),
        quote_id: fc.oneof(text, value),
        merchant_reference: fc.oneof(text, value),
        recipient: fc.oneof(
          fc.dictionary(fc.constantFrom('institution_code', 'account_number', 'account_name', 'address', 'memo'), fc.oneof(text, value)),
          value,
        ),
        customer: fc.oneof(
          fc.record(
            {
              reference: fc.oneof(text, value),
              name: fc.oneof(text, value),
              email: fc.oneof(text, value),
              phone: fc.oneof(text, value),
              dob: fc.oneof(text, fc.constantFrom('14-02-1990', '31-02-1990', '29-02-2000')),
            },
            { requiredKeys: [] },
          ),
          value,
        ),
        partner_fee: fc.oneof(fc.double({ min: -1, max: 11 }), value),
        provider_id: fc.oneof(fc.integer({ min: -1, max: 3 }), value),
        metadata: fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(text, fc.integer())), value),
        memo: fc.oneof(text, value),
      },
      { requiredKeys: [] },
    );
    const cases = fc.oneof(
      body,
      body.map((b) => ({ ...validOfframp, ...b })),
      fc.constant(validOfframp),
      value,
    );
    fc.assert(
      fc.property(cases, (input) => {
        for (const schema of [CreateOrderBodySchema, QuoteBodySchema, FiatRecipientSchema, CryptoRecipientSchema] as z.ZodType[]) {
          const part =
            schema === FiatRecipientSchema || schema === CryptoRecipientSchema
              ? (input as { recipient?: unknown } | null)?.recipient
              : input;
          expect(throughParseOrThrow(schema, part)).toEqual(runtime(schema, part));
        }
      }),
      seeded({ numRuns: 1500 }),
    );
    // The well-formed body itself goes through, trimmed and cased as the schema says.
    expect(parseOrThrow(CreateOrderBodySchema, validOfframp).from).toEqual({ currency: 'USDT', network: 'base-sepolia', amount: 100 });
  });

  it('hands back a schema zod cannot compile, and parses with it all the same', () => {
    const slow = z.object({ n: z.number().refine(async (n) => n > 0) });
    expect(() => z.compile(slow, { strict: true })).toThrow();
    expect(compiledOf(slow)).toBe(slow);
    const sync = z.object({ n: z.number().refine((n) => n > 0, 'must be positive') });
    expect(() => parseOrThrow(sync, { n: -1 })).toThrow('n: must be positive');
  });
});
