import type Router from '@koa/router';
import { z } from 'zod';
import { isIpOrCidr, type KeySet, type Partner, type PartnerRegistry } from '../auth';
import { ENVIRONMENTS, type Environment } from '../reference';
import { ok } from '../shared/envelope';
import { WEBHOOK_EVENTS } from '../shared/events';
import { parseOrThrow } from '../shared/validation';

const keyOf = (prefix: string) =>
  z
    .string()
    .refine((k) => k.startsWith(prefix), `must start with ${prefix}`)
    .refine((k) => /^[A-Za-z0-9_]{16,128}$/.test(k.slice(prefix.length)), {
      message: `must be ${prefix} followed by 16-128 characters of [A-Za-z0-9_]`,
    });

const keySetSchema = (env: Environment) =>
  z.object({
    public_key: keyOf(`pk_${env}_`),
    secret_key: keyOf(`sk_${env}_`),
    encryption_key: keyOf(`enc_${env}_`),
  });

const settings = {
  name: z.string().trim().min(1).max(200),
  kyb_status: z.enum(['approved', 'pending', 'rejected']),
  webhook_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).nullable(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  ip_whitelist: z.array(z.string().refine(isIpOrCidr, 'must be an IP address or CIDR block')).max(100),
};

export const CreatePartnerBodySchema = z.object({
  client_id: z.string().regex(/^[A-Za-z0-9_-]{3,64}$/, 'must be 3-64 characters of [A-Za-z0-9_-]').optional(),
  name: settings.name.optional(),
  kyb_status: settings.kyb_status.optional(),
  webhook_url: settings.webhook_url.optional(),
  events: settings.events.optional(),
  ip_whitelist: settings.ip_whitelist.optional(),
  keys: z.object({ test: keySetSchema('test').optional(), live: keySetSchema('live').optional() }).optional(),
});

export const UpdatePartnerBodySchema = z.object({
  name: settings.name.optional(),
  kyb_status: settings.kyb_status.optional(),
  webhook_url: settings.webhook_url.optional(),
  events: settings.events.optional(),
  ip_whitelist: settings.ip_whitelist.optional(),
});

const RotateKeysBodySchema = z.object({ environment: z.enum(ENVIRONMENTS) });

/** A partner with its full keys (only POST /sandbox/partners and key rotation show them). */
export function partnerView(p: Partner, mask = false) {
  const keys = (set: KeySet) =>
    mask ? { public_key: set.public_key, secret_key: maskKey(set.secret_key), encryption_key: maskKey(set.encryption_key) } : { ...set };
  return {
    client_id: p.client_id,
    name: p.name,
    kyb_status: p.kyb_status,
    webhook_url: p.webhook_url,
    events: p.events,
    ip_whitelist: p.ip_whitelist,
    keys: { test: keys(p.keys.test), live: keys(p.keys.live) },
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

/** `sk_test_****wxyz`: the prefix and the last four characters. */
export function maskKey(key: string): string {
  const prefix = /^[a-z]+_(?:test|live)_/.exec(key)?.[0] ?? '';
  return `${prefix}****${key.slice(-4)}`;
}

/** CONTRACT §4 partner routes. */
export function registerPartnerRoutes(router: Router, deps: { partners: PartnerRegistry }): void {
  router.post('/sandbox/partners', (ctx) => {
    const body = parseOrThrow(CreatePartnerBodySchema, ctx.request.body);
    ctx.body = ok('Partner created', partnerView(deps.partners.create(body)));
  });
  router.get('/sandbox/partners/:clientId', (ctx) => {
    ctx.body = ok('Partner retrieved', partnerView(deps.partners.require(ctx.params.clientId!), true));
  });
  router.patch('/sandbox/partners/:clientId', (ctx) => {
    const partner = deps.partners.require(ctx.params.clientId!);
    const body = parseOrThrow(UpdatePartnerBodySchema, ctx.request.body);
    ctx.body = ok('Partner updated', partnerView(deps.partners.update(partner.client_id, body), true));
  });
  router.post('/sandbox/partners/:clientId/keys', (ctx) => {
    const partner = deps.partners.require(ctx.params.clientId!);
    const { environment } = parseOrThrow(RotateKeysBodySchema, ctx.request.body);
    const keys = deps.partners.rotate(partner.client_id, environment);
    ctx.body = ok('Key set created; the previous set is revoked', { client_id: partner.client_id, environment, keys });
  });
}
