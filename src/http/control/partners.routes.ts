import { z } from 'zod';
import {
  ClientIdParamsSchema,
  CreatePartnerBodySchema,
  KeyRotationSchema,
  PartnerSchema,
  RotateKeysBodySchema,
  UpdatePartnerBodySchema,
  type KeySet,
  type Partner,
  type PartnerRegistry,
} from '../../auth';
import type { Api, AnyRouteSpec } from '../api';

const admin = { auth: 'admin', tag: 'sandbox' } as const;

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const createPartnerSpec = { ...admin, method: 'POST', path: '/sandbox/partners', operationId: 'createPartner', summary: 'Create a partner (full keys are shown only here and on rotation)', body: CreatePartnerBodySchema, data: PartnerSchema, message: 'Partner created', errors: [409] } as const satisfies AnyRouteSpec;
export const listPartnersSpec = { ...admin, method: 'GET', path: '/sandbox/partners', operationId: 'listPartners', summary: 'Every partner, keys masked', data: z.array(PartnerSchema), message: 'Partners retrieved' } as const satisfies AnyRouteSpec;
export const getPartnerSpec = { ...admin, method: 'GET', path: '/sandbox/partners/{client_id}', operationId: 'getPartner', summary: 'A partner’s settings, keys masked', params: ClientIdParamsSchema, data: PartnerSchema, message: 'Partner retrieved', errors: [404] } as const satisfies AnyRouteSpec;
export const updatePartnerSpec = { ...admin, method: 'PATCH', path: '/sandbox/partners/{client_id}', operationId: 'updatePartner', summary: 'Update KYB status, webhook URL, events or IP whitelist', params: ClientIdParamsSchema, body: UpdatePartnerBodySchema, data: PartnerSchema, message: 'Partner updated', errors: [404] } as const satisfies AnyRouteSpec;
export const rotatePartnerKeysSpec = { ...admin, method: 'POST', path: '/sandbox/partners/{client_id}/keys', operationId: 'rotatePartnerKeys', summary: 'New key set for an environment; the previous one is revoked at once', params: ClientIdParamsSchema, body: RotateKeysBodySchema, data: KeyRotationSchema, message: 'Key set created; the previous set is revoked', errors: [404] } as const satisfies AnyRouteSpec;

/** A partner as the control API shows it: full keys only where they are created. */
export function partnerView(p: Partner, mask = false): Partner {
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

/** CONTRACT §4 partner routes, and the list of CONTRACT §15. */
export function registerPartnerRoutes(api: Api, deps: { partners: PartnerRegistry }): void {
  const { partners } = deps;
  api.route(
    createPartnerSpec,
    ({ body }) => partnerView(partners.create(body)),
  );
  api.route(
    listPartnersSpec,
    () => partners.list().map((p) => partnerView(p, true)),
  );
  api.route(
    getPartnerSpec,
    ({ params }) => partnerView(partners.require(params.client_id), true),
  );
  api.route(
    updatePartnerSpec,
    ({ params, body }) => partnerView(partners.update(partners.require(params.client_id).client_id, body), true),
  );
  api.route(
    rotatePartnerKeysSpec,
    ({ params, body }) => {
      const partner = partners.require(params.client_id);
      return { client_id: partner.client_id, environment: body.environment, keys: partners.rotate(partner.client_id, body.environment) };
    },
  );
}
