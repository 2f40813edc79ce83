import * as z from 'zod';
import { ERROR_CODES } from './errors';

/** Spec §2.1 pagination meta. */
export const PageMetaSchema = z
  .object({
    total: z.number().int().nonnegative(),
    per_page: z.number().int().positive(),
    current_page: z.number().int().positive(),
    last_page: z.number().int().positive(),
  })
  .meta({ id: 'PageMeta' });

/** Spec §7 error envelope. */
export const ErrorEnvelopeSchema = z
  .object({
    status: z.literal(false),
    code: z.enum(ERROR_CODES as [string, ...string[]]),
    message: z.string().min(1),
  })
  .strict()
  .meta({
    id: 'Error',
    description: 'Spec §7 error envelope; message is `<field.path>: <reason>` for 422',
    example: { status: false, code: 'E_VALIDATION_ERROR', message: 'customer.email: must be an email address' },
  });

/** Spec §5.4 alternative failure body (missing client id, public key on a secret route). */
export const AlternativeErrorSchema = z
  .object({ status: z.literal('failed'), message: z.string().min(1), data: z.null() })
  .strict()
  .meta({
    id: 'AlternativeError',
    description: 'Spec §5.4: some authentication failures use this body',
    example: { status: 'failed', message: 'Missing svc-client-id header', data: null },
  });

/** Both auth failure bodies. */
export const AuthErrorSchema = z.union([ErrorEnvelopeSchema, AlternativeErrorSchema]).meta({
  id: 'AuthError',
  description: 'An authentication failure: the error envelope, or the spec §5.4 alternative body (`status` tells them apart)',
});

/**
 * The last instant RFC 3339 writes, 9999-12-31T23:59:59.999Z: past it `toISOString` writes a
 * six-digit, signed year (`+275760-…`), which is not the `date-time` the spec and the OpenAPI
 * document promise for every date the sandbox answers with.
 */
const MAX_DATE = 253_402_300_799_999;

/** The longest delay the sandbox sets ahead of its clock (an advance, a flag's duration): 10 years. */
export const MAX_DELAY_MS = 10 * 365 * 86_400_000;

/**
 * The latest virtual instant (Unix ms) the clock holds: MAX_DATE less a century of headroom for
 * what is set ahead of it (an expiry, a retry, a timer's due, each at most MAX_DELAY_MS ahead), so
 * every instant the sandbox stores renders as a `date-time`, and a state saved at the ceiling loads
 * again (CONTRACT §13).
 */
export const MAX_INSTANT = MAX_DATE - 100 * 365 * 86_400_000;

/**
 * An instant that happened, Unix ms, within the clock's range (CONTRACT §13: restored dates
 * included): a clock's `now`, a creation, a timeline entry, a payment.
 */
export const Instant = z
  .number()
  .int()
  .nonnegative()
  .max(MAX_INSTANT, `must be an instant the clock can hold (at most ${MAX_INSTANT}, ${new Date(MAX_INSTANT).toISOString()})`);

/**
 * An instant set ahead of the clock by a delay: an expiry, a retry, a timer's due. Near the
 * clock's ceiling it falls past it, up to MAX_DATE (what the sandbox saves, it loads again).
 */
export const DueInstant = z
  .number()
  .int()
  .nonnegative()
  .max(MAX_DATE, `must be an instant a date can hold (at most ${MAX_DATE}, ${new Date(MAX_DATE).toISOString()})`);

/** The clock's fastest realtime speed, for `POST /sandbox/clock` and a restored state alike. */
export const MAX_SPEED = 1_000_000;

/** An ISO 8601 instant as the sandbox renders it. */
export const DateTime = z.iso.datetime();

/**
 * A page-number query parameter of the control API: a positive integer up to `max`, `fallback`
 * when absent, with a message naming the parameter.
 */
export const pageQueryParam = (name: string, max: number, fallback: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, `${name} must be a positive integer`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `${name} must be from 1 to ${max}`)
    .optional()
    .transform((n) => n ?? fallback)
    // Documented as what it is on the wire: a digit string, read as an integer.
    .meta({ type: 'integer', minimum: 1, maximum: max, default: fallback, example: fallback });

/** The `page` and `per_page` of a control API list (at most 500 a page, 50 by default). */
export const ControlPageQuery = { page: pageQueryParam('page', 1_000_000, 1), per_page: pageQueryParam('per_page', 500, 50) };
