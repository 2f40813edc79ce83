// Webhook chaos per partner (CONTRACT §22): duplicates, reordering and delayed first attempts,
// decided from the seed and the delivery's id alone, so the same traffic gets the same chaos.
import * as z from 'zod';
import { DURATION_PATTERN, parseDuration } from '../clock';
import { notFound } from '../shared/errors';
import { hashSeed } from '../shared/ids';
import { MAX_DELAY_MS } from '../shared/schemas';
import { mix32 } from '../reference/market';

/** What chaos did to a delivery, as the delivery log marks it. */
export const CHAOS_MARKS = ['duplicate', 'reordered', 'delayed'] as const;
export type ChaosMark = (typeof CHAOS_MARKS)[number];

/**
 * A virtual duration (`90s`, `5m`, `1h30m`), at most 10 years, as chaos and rate paths take it;
 * surrounding spaces are dropped. `pattern` is what the document states: for a body, the
 * durations `POST /sandbox/clock/advance` states (whole units in the order d, h, m, s, ms, so a
 * generator stays under 10 years, `DURATION_PATTERN`); for an answer, every duration the server
 * reads and echoes as given (decimals such as 1.5h, any order, repeats, up to 3650d).
 */
const duration = (pattern: string, description: string) =>
  z
    .string()
    .max(64)
    .trim()
    .refine((d) => parseDuration(d) !== undefined, 'must be a duration such as 90s, 5m, 2h, 1d or 1h30m')
    .refine((d) => (parseDuration(d) ?? 0) <= MAX_DELAY_MS, 'must be at most 10 years (3650d)')
    .meta({ pattern, description, example: '30s' });

/** Every duration `parseDuration` reads, once trimmed. */
const READ_DURATION_PATTERN = '^(?:[0-9]+(?:[.][0-9]+)?(?:ms|s|m|h|d))+$';

export const ChaosDuration = duration(DURATION_PATTERN, 'a virtual duration such as 90s, 5m, 2h, 1d or 1h30m (at most 10 years)');
const ShownDuration = duration(READ_DURATION_PATTERN, 'a virtual duration as it was given (at most 10 years)');

function chaosFields(duration: typeof ChaosDuration, delayId: string) {
  const delay = z
    .object({ min: duration, max: duration })
    .refine((r) => parseDuration(r.min)! <= parseDuration(r.max)!, { message: 'min must not exceed max', path: ['min'] })
    .meta({
      id: delayId,
      // JSON Schema cannot compare two fields: the rule is said here; the server answers 422 `delay.min: min must not exceed max`.
      description: 'virtual time before the first attempt, drawn from min to max for each delivery; `min` must not exceed `max`',
      'x-constraint': 'min <= max',
      example: { min: '5s', max: '2m' },
    });
  return {
    duplicate_rate: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .meta({ description: 'the share of deliveries sent twice (a second delivery, the same body, marked `duplicate`)', example: 0.3 }),
    reorder_window: duration.optional().meta({
      description:
        'each delivery is held a random time up to this, so events of one order within it may arrive in any order (those overtaken are marked `reordered`)',
      example: '1m',
    }),
    delay: delay.optional(),
  };
}
const HAS_ONE = { message: 'give at least one of duplicate_rate, reorder_window or delay', path: ['duplicate_rate'] };
const hasOne = (c: { duplicate_rate?: unknown; reorder_window?: unknown; delay?: unknown }) =>
  c.duplicate_rate !== undefined || c.reorder_window !== undefined || c.delay !== undefined;

/** `PUT /sandbox/partners/{client_id}/webhook-chaos` (CONTRACT §22). */
export const WebhookChaosBodySchema = z
  .object(chaosFields(ChaosDuration, 'ChaosDelay'))
  .refine(hasOne, HAS_ONE)
  .meta({
    id: 'WebhookChaosBody',
    description: 'CONTRACT §22: at least one of duplicate_rate, reorder_window or delay; seeded by --seed',
    anyOf: [{ required: ['duplicate_rate'] }, { required: ['reorder_window'] }, { required: ['delay'] }],
    example: { duplicate_rate: 0.3, reorder_window: '1m', delay: { min: '5s', max: '30s' } },
  });
export type WebhookChaosBody = z.output<typeof WebhookChaosBodySchema>;

/** A partner's webhook chaos, as shown and as a state document holds it. */
export const WebhookChaosSchema = z
  .object({ client_id: z.string().min(1).meta({ example: 'ptr_acme' }), ...chaosFields(ShownDuration, 'ChaosDelayShown') })
  .refine(hasOne, HAS_ONE)
  .meta({ id: 'WebhookChaos', example: { client_id: 'ptr_acme', duplicate_rate: 0.3, reorder_window: '1m' } });
export type WebhookChaos = z.output<typeof WebhookChaosSchema>;

/** What chaos decides for one delivery: sent twice or not, and how long its first attempt waits. */
export interface ChaosDraw {
  duplicate: boolean;
  holdMs: number;
}

/**
 * The partners' webhook chaos, and its draws: each a pure function of (seed, delivery id, what
 * for), never of how many draws were made before, so a restored sandbox draws what the original
 * would have (ids continue from the document).
 */
export function createWebhookChaos(seed: number) {
  const settings = new Map<string, WebhookChaos>();

  /** A number in [0, 1) from the seed, the delivery and the purpose. */
  const uniform = (deliveryId: string, purpose: string) => mix32(hashSeed('webhook chaos', seed, deliveryId, purpose)) / 4_294_967_296;

  return {
    /** Sets a partner's chaos (replacing what it had). */
    set(clientId: string, body: WebhookChaosBody): WebhookChaos {
      const chaos: WebhookChaos = { client_id: clientId, ...body };
      settings.set(clientId, chaos);
      return chaos;
    },
    get: (clientId: string): WebhookChaos | undefined => settings.get(clientId),
    /** 404 when the partner has none. */
    require(clientId: string): WebhookChaos {
      const chaos = settings.get(clientId);
      if (!chaos) throw notFound(`Partner ${clientId} has no webhook chaos`);
      return chaos;
    },
    remove(clientId: string): WebhookChaos {
      const chaos = settings.get(clientId);
      if (!chaos) throw notFound(`Partner ${clientId} has no webhook chaos`);
      settings.delete(clientId);
      return chaos;
    },
    list: (): WebhookChaos[] => [...settings.values()].sort((a, b) => (a.client_id < b.client_id ? -1 : 1)),
    clear: () => settings.clear(),
    exportState: (): WebhookChaos[] => [...settings.values()].map((c) => structuredClone(c)),
    restore(saved: readonly WebhookChaos[] | undefined): void {
      settings.clear();
      for (const c of saved ?? []) settings.set(c.client_id, structuredClone(c));
    },
    /** What chaos does to a new delivery of a partner with `chaos` (a duplicate is drawn for on its own id, never duplicated again). */
    draw(chaos: WebhookChaos, deliveryId: string, isDuplicate: boolean): ChaosDraw {
      let holdMs = 0;
      if (chaos.delay) {
        const min = parseDuration(chaos.delay.min)!;
        const max = parseDuration(chaos.delay.max)!;
        holdMs += min + Math.floor(uniform(deliveryId, 'delay') * (max - min + 1));
      }
      if (chaos.reorder_window) holdMs += Math.floor(uniform(deliveryId, 'reorder') * (parseDuration(chaos.reorder_window)! + 1));
      const duplicate = !isDuplicate && (chaos.duplicate_rate ?? 0) > 0 && uniform(deliveryId, 'duplicate') < chaos.duplicate_rate!;
      return { duplicate, holdMs };
    },
  };
}

export type WebhookChaosStore = ReturnType<typeof createWebhookChaos>;
