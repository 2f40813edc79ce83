import { Readable } from 'node:stream';
import type { Context } from 'koa';
import * as z from 'zod';
import type { PartnerRegistry } from '../../auth';
import { ENVIRONMENTS, type AddressFormat, type Environment, type ReferenceStore } from '../../reference';
import type { Api, AnyRouteSpec } from '../api/api';
import { harChunks, HarSchema } from '../exports/har';
import { buildPostmanCollection, PostmanCollectionSchema, type HappyPathBodies } from '../exports/postman';
import type { RequestLog } from '../inspector/request-log';
import { RequestsQuerySchema } from '../inspector/request-log.schemas';

const admin = { auth: 'admin', tag: 'sandbox' } as const;

/** The file name a browser saves `GET /sandbox/requests.har` as. */
export const HAR_FILE_NAME = 'ramp-sandbox-requests.har';
/** The file name a browser saves `GET /sandbox/postman.json` as (and `ramp-sandbox postman`'s default). */
export const POSTMAN_FILE_NAME = 'ramp-sandbox.postman_collection.json';

export const PostmanQuerySchema = z.object({
  client_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .meta({ description: 'the partner whose keys the collection carries (default: the demo partner)' }),
  environment: z.enum(ENVIRONMENTS).optional().meta({ description: 'which of its key sets (default test)' }),
});

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
// Both answer a document as it is (media application/json), not in an envelope, so that it can
// be saved and imported as it comes.
export const exportHarSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/requests.har',
  operationId: 'exportRequestsHar',
  summary: 'The recorded /v1 requests as HAR 1.2, oldest first (same filters as GET /sandbox/requests)',
  description:
    "An HTTP Archive of what the request inspector keeps: bodies as recorded (their first 4,096 characters), Authorization and svc-signature masked, a few of each answer's headers, and the inspector's own fields under `_inspector`. Answered with `Content-Disposition: attachment; filename=\"ramp-sandbox-requests.har\"`; import it into a browser's developer tools or any HAR viewer.",
  query: RequestsQuerySchema,
  data: HarSchema,
  media: ['application/json'],
  message: 'The requests as HAR',
} as const satisfies AnyRouteSpec;

export const exportPostmanSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/postman.json',
  operationId: 'exportPostmanCollection',
  summary: 'A Postman v2.1 collection of every /v1 route, signing each request (spec §5.2), with a "Happy path" folder',
  description:
    'Generated from this OpenAPI document: a folder per tag, example bodies, the partner\'s client id and keys as collection variables, and a collection-level pre-request script that signs every request. Its "Happy path" folder creates a quote, an order from it, reads the order and cancels it, checking each answer. `ramp-sandbox postman` writes it to a file.',
  query: PostmanQuerySchema,
  data: PostmanCollectionSchema,
  media: ['application/json'],
  message: 'The Postman collection',
  errors: [404],
} as const satisfies AnyRouteSpec;

export interface ExportRoutesDeps {
  requests: RequestLog;
  partners: PartnerRegistry;
  reference: ReferenceStore;
  /** The client id of the demo partner (the Postman collection's default). */
  demoClientId: string;
  version: string;
}

/** CONTRACT §19: the request inspector as HAR, and a Postman collection of /v1. */
export function registerExportRoutes(api: Api, deps: ExportRoutesDeps): void {
  api.route(exportHarSpec, ({ query, ctx }) => {
    const recorded = deps.requests.list(query);
    const filters = Object.entries(query)
      .filter(([key, value]) => key !== 'limit' && value !== undefined)
      .map(([key, value]) => `${key}=${String(value)}`);
    const comment = `The request inspector of ramp-sandbox: ${recorded.length} of the last ${query.limit} requests${filters.length ? ` matching ${filters.join(', ')}` : ''}, oldest first`;
    ctx.set('Content-Disposition', `attachment; filename="${HAR_FILE_NAME}"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/json; charset=utf-8';
    ctx.status = 200;
    // Streamed one entry at a time: the inspector's list is bounded (limit ≤ 1000), and each
    // entry's JSON is made when the socket takes it.
    ctx.body = Readable.from(harChunks(recorded, { origin: originOf(ctx), version: deps.version, comment }));
  });

  api.route(exportPostmanSpec, ({ query, ctx }) => {
    const partner = deps.partners.require(query.client_id ?? deps.demoClientId);
    const environment = query.environment ?? 'test';
    const data = environmentData(deps.reference, environment);
    const collection = buildPostmanCollection({
      document: api.document(),
      baseUrl: originOf(ctx),
      partner: { clientId: partner.client_id, environment, keys: partner.keys[environment] },
      happyPath: happyPathBodies(data),
      version: deps.version,
      sample: (path, name) => parameterSample(data, path, name),
      body: (method, path, example) => environmentBody(data, method, path, example),
    });
    ctx.set('Content-Disposition', `attachment; filename="${POSTMAN_FILE_NAME}"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/json; charset=utf-8';
    ctx.status = 200;
    ctx.body = `${JSON.stringify(collection, null, 2)}\n`;
  });
}

/** The sandbox as the caller reached it (the collection's {{baseUrl}}, the HAR's URLs). */
function originOf(ctx: Context): string {
  return ctx.host ? `http://${ctx.host}` : 'http://127.0.0.1:4010';
}

/** Data of one environment that requests need to succeed there: an onramp pair, its network, a bank. */
interface EnvironmentData {
  fiat: string;
  crypto: string;
  network: string;
  format: AddressFormat;
  institution: string | undefined;
}

/** Example addresses, one per format (only the format is checked). */
const ADDRESSES: Record<AddressFormat, string> = {
  evm: '0x52908400098527886E0F7030069857D2E4169EE7',
  tron: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  solana: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
};

/**
 * An onramp the environment's fixtures support: NGN (else the first fiat) to the dollar
 * stablecoin (else any crypto with a rate) on an EVM network where possible.
 */
function environmentData(reference: ReferenceStore, env: Environment): EnvironmentData {
  const fiats = reference.fiatCurrencies().map((f) => f.code);
  const fiatOrder = fiats.includes('NGN') ? ['NGN', ...fiats.filter((f) => f !== 'NGN')] : fiats;
  const networks = reference.networks(env).map((n) => ({ id: n.identifier, format: reference.addressFormat(env, n.identifier) }));
  const evmFirst = [...networks.filter((n) => n.format === 'evm'), ...networks.filter((n) => n.format !== 'evm')];
  const stable = reference.usdStablecoin();
  for (const fiat of fiatOrder) {
    for (const network of evmFirst) {
      if (!network.format) continue;
      const symbols = reference.networkCryptos(env, network.id).map((c) => c.symbol);
      const cryptos = symbols.includes(stable) ? [stable, ...symbols.filter((s) => s !== stable)] : symbols;
      const crypto = cryptos.find((symbol) => reference.rates(fiat, symbol) !== undefined);
      if (crypto)
        return { fiat, crypto, network: network.id, format: network.format, institution: reference.institutionsOf(fiat)[0]?.code };
    }
  }
  // Fixtures without a single onramp: the collection is still made; its Happy path will say why it fails.
  const network = evmFirst[0];
  return {
    fiat: fiatOrder[0] ?? 'NGN',
    crypto: stable,
    network: network?.id ?? 'base-sepolia',
    format: network?.format ?? 'evm',
    institution: undefined,
  };
}

function happyPathBodies(data: EnvironmentData): HappyPathBodies {
  return {
    // The amount on the crypto leg: any positive amount is payable (the fees come on top).
    quote: { from: { currency: data.fiat }, to: { currency: data.crypto, network: data.network, amount: 10 } },
    order: {
      recipient: { address: ADDRESSES[data.format] },
      customer: { reference: 'cus_postman', name: 'Ada Obi', email: 'ada@example.com' },
    },
  };
}

/**
 * The quote and create bodies of the Orders folder in the environment: the document's examples
 * name a test network, and a live collection's quote and order were refused (400 unknown network
 * base-sepolia in the live environment). The example's legs become the environment's, its fiat
 * amount kept, and a crypto recipient gets an address of that network's format.
 */
function environmentBody(data: EnvironmentData, method: string, path: string, example: unknown): unknown {
  if (method !== 'POST' || (path !== '/v1/orders/quote' && path !== '/v1/orders')) return example;
  if (example === null || typeof example !== 'object' || Array.isArray(example)) return example;
  const body: Record<string, unknown> = { ...example };
  const amount = (body.from as { amount?: unknown } | undefined)?.amount;
  if ('from' in body || 'to' in body) {
    body.from = { currency: data.fiat, ...(typeof amount === 'number' ? { amount } : {}) };
    body.to = { currency: data.crypto, network: data.network, ...(typeof amount === 'number' ? {} : { amount: 10 }) };
  }
  const recipient = body.recipient as Record<string, unknown> | undefined;
  if (recipient && 'address' in recipient) body.recipient = { ...recipient, address: ADDRESSES[data.format] };
  return body;
}

/** Values of the environment for the /v1 parameters that name reference data. */
function parameterSample(data: EnvironmentData, path: string, name: string): string | undefined {
  switch (name) {
    case 'fiat':
    case 'from':
      return data.fiat;
    case 'to':
      return data.crypto;
    case 'pair':
      return `${data.fiat}_${data.crypto}`;
    case 'identifier':
      return path.startsWith('/v1/networks') ? data.network : data.crypto;
    case 'bank_code':
      return data.institution;
    case 'account_number':
      return '0123456789';
    case 'include':
      return 'payout,timeline';
    case 'page':
      return '1';
    case 'per_page':
      return '20';
    default:
      return undefined;
  }
}
