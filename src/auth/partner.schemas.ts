import { z } from 'zod';
import { ENVIRONMENTS, type Environment } from '../reference';
import { WEBHOOK_EVENTS } from '../shared/events';
import { DateTime } from '../shared/schemas';
import { isIpOrCidr } from './ip';

/** CONTRACT §4: a partner's KYB status; quotes and orders need `approved`. */
export const KybStatusSchema = z.enum(['approved', 'pending', 'rejected']).meta({ id: 'KybStatus' });
export type KybStatus = z.output<typeof KybStatusSchema>;

/** Spec §5: the prefix of each kind of key (`pk_test_…`, `sk_live_…`, `enc_test_…`). */
export const KEY_PREFIX = { public: 'pk', secret: 'sk', encryption: 'enc' } as const;

/** CONTRACT §8: the right prefix, then 16–128 characters of [A-Za-z0-9_]. */
const keyOf = (prefix: string) =>
  z
    .string()
    .refine((k) => k.startsWith(prefix), `must start with ${prefix}`)
    .refine((k) => /^[A-Za-z0-9_]{16,128}$/.test(k.slice(prefix.length)), {
      message: `must be ${prefix} followed by 16-128 characters of [A-Za-z0-9_]`,
    });

/** A key set as given by a caller: prefixes checked for the environment. */
export const keySetInputSchema = (env: Environment) =>
  z.object({
    public_key: keyOf(`${KEY_PREFIX.public}_${env}_`),
    secret_key: keyOf(`${KEY_PREFIX.secret}_${env}_`),
    encryption_key: keyOf(`${KEY_PREFIX.encryption}_${env}_`),
  });

/** A key set as shown (full secrets only when created or rotated; masked elsewhere). */
export const KeySetSchema = z
  .object({ public_key: z.string(), secret_key: z.string(), encryption_key: z.string() })
  .meta({ id: 'KeySet' });
export type KeySet = z.output<typeof KeySetSchema>;

const settings = {
  name: z.string().trim().min(1).max(200),
  kyb_status: KybStatusSchema,
  webhook_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).nullable(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  ip_whitelist: z.array(z.string().refine(isIpOrCidr, 'must be an IP address or CIDR block')).max(100),
};

const ClientIdSchema = z.string().regex(/^[A-Za-z0-9_-]{3,64}$/, 'must be 3-64 characters of [A-Za-z0-9_-]');

/** CONTRACT §4 `POST /sandbox/partners`. */
export const CreatePartnerBodySchema = z.object({
  client_id: ClientIdSchema.optional(),
  name: settings.name.optional(),
  kyb_status: settings.kyb_status.optional(),
  webhook_url: settings.webhook_url.optional(),
  events: settings.events.optional(),
  ip_whitelist: settings.ip_whitelist.optional(),
  keys: z.object({ test: keySetInputSchema('test').optional(), live: keySetInputSchema('live').optional() }).optional(),
});
export type CreatePartnerInput = z.output<typeof CreatePartnerBodySchema>;

/** CONTRACT §4 `PATCH /sandbox/partners/{client_id}`. */
export const UpdatePartnerBodySchema = z.object({
  name: settings.name.optional(),
  kyb_status: settings.kyb_status.optional(),
  webhook_url: settings.webhook_url.optional(),
  events: settings.events.optional(),
  ip_whitelist: settings.ip_whitelist.optional(),
});
export type UpdatePartnerInput = z.output<typeof UpdatePartnerBodySchema>;

export const RotateKeysBodySchema = z.object({ environment: z.enum(ENVIRONMENTS) });

/** A partner: the record and its control API view (keys masked except where created). */
export const PartnerSchema = z
  .object({
    client_id: z.string(),
    name: z.string(),
    kyb_status: KybStatusSchema,
    webhook_url: z.string().nullable(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    ip_whitelist: z.array(z.string()),
    keys: z.object({ test: KeySetSchema, live: KeySetSchema }),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'Partner' });
export type Partner = z.output<typeof PartnerSchema>;

/**
 * A partner as a state document holds it (CONTRACT §13): the rules `POST /sandbox/partners`
 * applies (client id, name, webhook URL, whitelist, key prefixes), with its full keys.
 */
export const PartnerRecordSchema = PartnerSchema.extend({
  client_id: ClientIdSchema,
  name: z.string().min(1).max(200),
  webhook_url: settings.webhook_url,
  ip_whitelist: settings.ip_whitelist,
  keys: z.object({ test: keySetInputSchema('test'), live: keySetInputSchema('live') }),
}).meta({ id: 'PartnerRecord' });


/** A key that was rotated away: it still resolves, to answer "revoked" (a state snapshot keeps it). */
export const RevokedKeySchema = z
  .object({
    key: z.string(),
    client_id: ClientIdSchema,
    environment: z.enum(ENVIRONMENTS),
    kind: z.enum(['public', 'secret', 'encryption']),
  })
  .superRefine((r, ctx) => {
    const prefix = `${KEY_PREFIX[r.kind]}_${r.environment}_`;
    if (!r.key.startsWith(prefix) || !/^[A-Za-z0-9_]{16,128}$/.test(r.key.slice(prefix.length))) {
      ctx.addIssue({ code: 'custom', path: ['key'], message: `must be ${prefix} followed by 16-128 characters of [A-Za-z0-9_] (a ${r.environment} ${r.kind} key)` });
    }
  });
export type RevokedKey = z.output<typeof RevokedKeySchema>;

export const KeyRotationSchema = z
  .object({ client_id: z.string(), environment: z.enum(ENVIRONMENTS), keys: KeySetSchema })
  .meta({ id: 'KeyRotation' });

/** `GET /sandbox/partners/{client_id}/keys`: a partner's key sets in full (the dashboard reveals them on demand). */
export const PartnerKeysSchema = z
  .object({ client_id: z.string(), keys: z.object({ test: KeySetSchema, live: KeySetSchema }) })
  .meta({ id: 'PartnerKeys' });

export const ClientIdParamsSchema = z.object({ client_id: z.string() });
