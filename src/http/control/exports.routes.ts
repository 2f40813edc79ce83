import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { Api, AnyRouteSpec } from '../api';
import { harChunks, HarSchema } from '../har';
import { RequestsQuerySchema, type RequestLog } from '../request-log';

const admin = { auth: 'admin', tag: 'sandbox' } as const;

/** The file name a browser saves `GET /sandbox/requests.har` as. */
export const HAR_FILE_NAME = 'ramp-sandbox-requests.har';

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
// It answers a document as it is (media application/json), not in an envelope, so that it can
// be saved and imported as it comes.
export const exportHarSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/requests.har',
  operationId: 'exportRequestsHar',
  summary: 'The recorded /v1 requests as HAR 1.2, oldest first (same filters as GET /sandbox/requests)',
  description:
    'An HTTP Archive of what the request inspector keeps: bodies as recorded (their first 4,096 characters), Authorization and svc-signature masked, a few of each answer\'s headers, and the inspector\'s own fields under `_inspector`. Answered with `Content-Disposition: attachment; filename="ramp-sandbox-requests.har"`; import it into a browser\'s developer tools or any HAR viewer.',
  query: RequestsQuerySchema,
  data: HarSchema,
  media: ['application/json'],
  message: 'The requests as HAR',
} as const satisfies AnyRouteSpec;

export interface ExportRoutesDeps {
  requests: RequestLog;
  version: string;
}

/** CONTRACT §19: the request inspector as HAR. */
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
}

/** The sandbox as the caller reached it (the collection's {{baseUrl}}, the HAR's URLs). */
function originOf(ctx: Context): string {
  return ctx.host ? `http://${ctx.host}` : 'http://127.0.0.1:4010';
}
