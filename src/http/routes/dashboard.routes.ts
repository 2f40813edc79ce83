import * as z from 'zod';
import type { Api } from '../api/api';
import { answerEventStream } from '../api/event-stream';
import { notFound } from '../../shared/errors';
import { ASSET_MEDIA, ASSET_NAME, ASSET_PREFIX, createAssetStore } from '../../dashboard/assets';
import type { LiveFeed } from '../../dashboard/live';
import { dashboardLifecycles, dashboardVocabulary, type DashboardBootstrap } from '../../dashboard/vocabulary';
import type { LifecycleTimings } from '../../orders/order.machine';

export { LiveFeed, type LiveFeedDeps, type LiveKind } from '../../dashboard/live';

const DASHBOARD_PATH = '/sandbox/dashboard';

const AssetParamsSchema = z.object({
  name: z.string().regex(ASSET_NAME, 'must be an asset name such as app.js').meta({ example: 'app.js' }),
});

/**
 * CONTRACT §15: the dashboard page (`GET /sandbox/dashboard`, and `GET /` redirects there),
 * its assets (served by the sandbox, no CDN) and its live feed (`GET /sandbox/events`).
 */
export function registerDashboard(api: Api, deps: { live: LiveFeed; demoClientId: () => string; timings: LifecycleTimings }): void {
  const assets = createAssetStore();
  const vocabulary = dashboardVocabulary();
  const lifecycles = dashboardLifecycles(deps.timings);
  const page = { auth: 'page', tag: 'sandbox', data: z.void() } as const;

  api.route(
    {
      ...page,
      auth: 'none',
      method: 'GET',
      path: '/',
      operationId: 'home',
      summary: 'Redirects to the dashboard',
      media: [],
      successStatus: 302,
      message: 'Redirect to /sandbox/dashboard',
    },
    ({ ctx }) => {
      ctx.redirect(DASHBOARD_PATH);
    },
  );
  api.route(
    {
      ...page,
      data: z.string(),
      method: 'GET',
      path: DASHBOARD_PATH,
      operationId: 'dashboard',
      summary: 'The dashboard (HTML; it asks for the admin token when one is set)',
      html: true,
      message: 'The dashboard',
    },
    ({ ctx }) => {
      ctx.set('Cache-Control', 'no-cache');
      return shell(assets.importMap(), { vocabulary, lifecycles, demo_client_id: deps.demoClientId() });
    },
  );
  api.route(
    {
      ...page,
      method: 'GET',
      path: `${ASSET_PREFIX}/{name}`,
      operationId: 'dashboardAsset',
      summary: 'A script, stylesheet or icon of the dashboard (or the README), with an ETag',
      description:
        'Cache-Control: no-cache with an ETag: a browser keeps the asset and asks again with If-None-Match (a 304 when unchanged), so an upgraded sandbox is never served stale files.',
      params: AssetParamsSchema,
      media: ASSET_MEDIA,
      message: 'The asset',
      errors: [304, 404],
    },
    async ({ params, ctx }) => {
      const asset = await assets.get(params.name);
      if (!asset) throw notFound(`No dashboard asset ${params.name}`);
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('ETag', asset.etag);
      ctx.type = asset.type;
      ctx.status = 200;
      // Koa's ctx.fresh compares If-None-Match with the ETag set above (the `fresh` package).
      if (ctx.fresh) {
        ctx.status = 304;
        ctx.body = null;
        return;
      }
      ctx.body = asset.body;
    },
  );
  api.route(
    {
      method: 'GET',
      path: '/sandbox/events',
      operationId: 'sandboxEvents',
      summary: 'Server-sent events: what changed (order, delivery, request, clock), at most every 250 ms',
      description:
        'Each message is `event: order|delivery|request|clock` with JSON data: `{all, references}` (orders), `{all, ids}` (deliveries), `{count}` (requests), the clock view (clock). A reader that leaves 256 KiB unread is cut off (reconnect). Send the admin token as a bearer token: read the stream with fetch().',
      auth: 'admin',
      tag: 'sandbox',
      data: z.void(),
      media: ['text/event-stream'],
      message: 'The event stream',
    },
    ({ ctx }) => {
      answerEventStream(ctx, deps.live.open());
    },
  );
}

function shell(importMap: Record<string, string>, bootstrap: DashboardBootstrap): string {
  // The import map and the bootstrap are JSON in script elements: `<` is escaped so no value can close one.
  const map = JSON.stringify({ imports: importMap }).replace(/</g, '\\u003c');
  const boot = JSON.stringify(bootstrap).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ramp-sandbox dashboard</title>
<link rel="icon" href="${ASSET_PREFIX}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${ASSET_PREFIX}/style.css">
<script type="application/json" id="bootstrap">${boot}</script>
<script type="importmap">${map}</script>
<script type="module" src="${ASSET_PREFIX}/app.js"></script>
</head><body>
<div id="app"><p class="loading">Loading the dashboard…</p></div>
<noscript>The dashboard needs JavaScript. Everything it shows is also in the control API: see GET /openapi.json (tag sandbox).</noscript>
</body></html>`;
}
