import * as z from 'zod';
import {
  ClientIdParamsSchema,
  CreatePartnerBodySchema,
  KeyRotationSchema,
  PartnerKeysSchema,
  PartnerSchema,
  RotateKeysBodySchema,
  UpdatePartnerBodySchema,
  partnerView,
  type PartnerRegistry,
} from '../../auth';
import type { Api, AnyRouteSpec } from '../api/api';

const admin = { auth: 'admin', tag: 'sandbox' } as const;

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const createPartnerSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/partners',
  operationId: 'createPartner',
  summary: 'Create a partner (full keys are shown only here and on rotation)',
  body: CreatePartnerBodySchema,
  data: PartnerSchema,
  message: 'Partner created',
  errors: [409],
} as const satisfies AnyRouteSpec;
export const listPartnersSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/partners',
  operationId: 'listPartners',
  summary: 'Every partner, keys masked',
  data: z.array(PartnerSchema),
  message: 'Partners retrieved',
} as const satisfies AnyRouteSpec;
export const getPartnerSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/partners/{client_id}',
  operationId: 'getPartner',
  summary: 'A partner’s settings, keys masked',
  params: ClientIdParamsSchema,
  data: PartnerSchema,
  message: 'Partner retrieved',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const updatePartnerSpec = {
  ...admin,
  method: 'PATCH',
  path: '/sandbox/partners/{client_id}',
  operationId: 'updatePartner',
  summary: 'Update KYB status, webhook URL, events or IP whitelist',
  params: ClientIdParamsSchema,
  body: UpdatePartnerBodySchema,
  data: PartnerSchema,
  message: 'Partner updated',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const rotatePartnerKeysSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/partners/{client_id}/keys',
  operationId: 'rotatePartnerKeys',
  summary: 'New key set for an environment; the previous one is revoked at once',
  params: ClientIdParamsSchema,
  body: RotateKeysBodySchema,
  data: KeyRotationSchema,
  message: 'Key set created; the previous set is revoked',
  errors: [404],
} as const satisfies AnyRouteSpec;

export const getPartnerKeysSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/partners/{client_id}/keys',
  operationId: 'getPartnerKeys',
  summary: 'A partner’s key sets in full (what the dashboard reveals on demand; the terminal prints the demo partner’s)',
  params: ClientIdParamsSchema,
  data: PartnerKeysSchema,
  message: 'Keys retrieved',
  errors: [404],
} as const satisfies AnyRouteSpec;

/** CONTRACT §4 partner routes, and the list of CONTRACT §15. */
export function registerPartnerRoutes(api: Api, deps: { partners: PartnerRegistry }): void {
  const { partners } = deps;
  api.route(createPartnerSpec, ({ body }) => partnerView(partners.create(body)));
  api.route(listPartnersSpec, () => partners.list().map((p) => partnerView(p, true)));
  api.route(getPartnerSpec, ({ params }) => partnerView(partners.require(params.client_id), true));
  api.route(updatePartnerSpec, ({ params, body }) =>
    partnerView(partners.update(partners.require(params.client_id).client_id, body), true),
  );
  api.route(getPartnerKeysSpec, ({ params }) => {
    const partner = partners.require(params.client_id);
    return { client_id: partner.client_id, keys: { test: { ...partner.keys.test }, live: { ...partner.keys.live } } };
  });
  api.route(rotatePartnerKeysSpec, ({ params, body }) => {
    const partner = partners.require(params.client_id);
    return { client_id: partner.client_id, environment: body.environment, keys: partners.rotate(partner.client_id, body.environment) };
  });
}
