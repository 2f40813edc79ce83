import * as z from 'zod';
import { ENVIRONMENTS, type Environment } from '../reference';
import { WEBHOOK_EVENTS } from '../shared/events';
import { DateTime } from '../shared/schemas';
import { HTTP_URL_PATTERN, TRIMMED_PATTERN } from '../shared/documented';
import { IP_OR_CIDR_PATTERN, isIpOrCidr } from './ip';

/** CONTRACT §4: a partner's KYB status; quotes and orders need `approved`. */
export const KybStatusSchema = z.enum(['approved', 'pending', 'rejected']).meta({ id: 'KybStatus', example: 'approved' });
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
    })
    .meta({ pattern: `^${prefix}[A-Za-z0-9_]{16,128}$`, example: `${prefix}${'a1B2c3D4e5F6g7H8'}` });

/** A key set as given by a caller: prefixes checked for the environment. */
const keySetInputSchema = (env: Environment) =>
  z
    .object({
      public_key: keyOf(`${KEY_PREFIX.public}_${env}_`),
      secret_key: keyOf(`${KEY_PREFIX.secret}_${env}_`),
      encryption_key: keyOf(`${KEY_PREFIX.encryption}_${env}_`),
    })
    .meta({ id: `KeySetInput_${env}`, description: `Keys of the ${env} environment to use instead of generated ones (CONTRACT §8)` });

/** A key set as shown (full secrets only when created or rotated; masked elsewhere). */
export const KeySetSchema = z.object({ public_key: z.string(), secret_key: z.string(), encryption_key: z.string() }).meta({
  id: 'KeySet',
  example: {
    public_key: 'pk_test_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6',
    secret_key: 'sk_test_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6',
    encryption_key: 'enc_test_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6',
  },
});
export type KeySet = z.output<typeof KeySetSchema>;

/**
 * A partner's key set per environment: a component of its own, as `Partner.keys` and
 * `PartnerKeys.keys`. Inline, a generator names it after where it sits, and openapi-python-client
 * would name `Partner.keys` PartnerKeys, the name of the keys route's answer (issue 6).
 */
const KeySetsSchema = z.object({ test: KeySetSchema, live: KeySetSchema }).meta({
  id: 'KeySets',
  example: {
    test: { public_key: 'pk_test_a1B2c3D4e5F6g7H8', secret_key: 'sk_test_a1B2c3D4e5F6g7H8', encryption_key: 'enc_test_a1B2c3D4e5F6g7H8' },
    live: { public_key: 'pk_live_a1B2c3D4e5F6g7H8', secret_key: 'sk_live_a1B2c3D4e5F6g7H8', encryption_key: 'enc_live_a1B2c3D4e5F6g7H8' },
  },
});

const settings = {
  name: z.string().trim().min(1).max(200).meta({ pattern: TRIMMED_PATTERN, example: 'Acme Payments' }),
  kyb_status: KybStatusSchema,
  webhook_url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .meta({ pattern: HTTP_URL_PATTERN, description: 'where deliveries go (http or https)', example: 'https://hooks.partner.example/ramp' })
    .nullable(),
  events: z
    .array(z.enum(WEBHOOK_EVENTS))
    .meta({ description: 'the events sent (default: all ten)', example: ['order.created', 'order.settled'] }),
  ip_whitelist: z
    .array(
      z.string().refine(isIpOrCidr, 'must be an IP address or CIDR block').meta({ pattern: IP_OR_CIDR_PATTERN, example: '203.0.113.0/24' }),
    )
    .max(100)
    .meta({ description: 'IPs or CIDR blocks; empty: any address', example: ['203.0.113.0/24'] }),
};

const ClientIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{3,64}$/, 'must be 3-64 characters of [A-Za-z0-9_-]')
  .meta({ example: 'ptr_acme' });

/** CONTRACT §4 `POST /sandbox/partners`. */
export const CreatePartnerBodySchema = z
  .object({
    client_id: ClientIdSchema.optional(),
    name: settings.name.optional(),
    kyb_status: settings.kyb_status.optional(),
    webhook_url: settings.webhook_url.optional(),
    events: settings.events.optional(),
    ip_whitelist: settings.ip_whitelist.optional(),
    keys: z.object({ test: keySetInputSchema('test').optional(), live: keySetInputSchema('live').optional() }).optional(),
  })
  .meta({ id: 'CreatePartnerBody', example: { name: 'Acme Payments', webhook_url: 'https://hooks.partner.example/ramp' } });
export type CreatePartnerInput = z.output<typeof CreatePartnerBodySchema>;

/** CONTRACT §4 `PATCH /sandbox/partners/{client_id}`. */
export const UpdatePartnerBodySchema = z
  .object({
    name: settings.name.optional(),
    kyb_status: settings.kyb_status.optional(),
    webhook_url: settings.webhook_url.optional(),
    events: settings.events.optional(),
    ip_whitelist: settings.ip_whitelist.optional(),
  })
  .meta({ id: 'UpdatePartnerBody', example: { kyb_status: 'pending' } });
export type UpdatePartnerInput = z.output<typeof UpdatePartnerBodySchema>;

export const RotateKeysBodySchema = z
  .object({ environment: z.enum(ENVIRONMENTS) })
  .meta({ id: 'RotateKeysBody', example: { environment: 'test' } });

/** A partner: the record and its control API view (keys masked except where created). */
export const PartnerSchema = z
  .object({
    client_id: z.string(),
    name: z.string(),
    kyb_status: KybStatusSchema,
    webhook_url: z.string().nullable(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    ip_whitelist: z.array(z.string()),
    keys: KeySetsSchema,
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
      ctx.addIssue({
        code: 'custom',
        path: ['key'],
        message: `must be ${prefix} followed by 16-128 characters of [A-Za-z0-9_] (a ${r.environment} ${r.kind} key)`,
      });
    }
  });
export type RevokedKey = z.output<typeof RevokedKeySchema>;

export const KeyRotationSchema = z
  .object({ client_id: z.string(), environment: z.enum(ENVIRONMENTS), keys: KeySetSchema })
  .meta({ id: 'KeyRotation' });

/** `GET /sandbox/partners/{client_id}/keys`: a partner's key sets in full (the dashboard reveals them on demand). */
export const PartnerKeysSchema = z.object({ client_id: z.string(), keys: KeySetsSchema }).meta({
  id: 'PartnerKeys',
  example: {
    client_id: 'ptr_acme',
    keys: {
      test: { public_key: 'pk_test_a1B2c3D4e5F6g7H8', secret_key: 'sk_test_a1B2c3D4e5F6g7H8', encryption_key: 'enc_test_a1B2c3D4e5F6g7H8' },
      live: { public_key: 'pk_live_a1B2c3D4e5F6g7H8', secret_key: 'sk_live_a1B2c3D4e5F6g7H8', encryption_key: 'enc_live_a1B2c3D4e5F6g7H8' },
    },
  },
});

export const ClientIdParamsSchema = z.object({ client_id: z.string().min(1).meta({ example: 'ptr_acme' }) });
