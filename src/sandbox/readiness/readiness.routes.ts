// CONTRACT §21 on the control API: open a run, read its report, finish it, list runs. Admin
// routes like every /sandbox route (CONTRACT §4).
import type { AnyRouteSpec, Api } from '../../http/api/api';
import type { Readiness } from './runs';
import { OpenRunBodySchema, ReadinessReportSchema, RunParamsSchema, RunsQuerySchema } from './readiness.schemas';

const admin = { auth: 'admin', tag: 'sandbox' } as const;

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const openReadinessRunSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/readiness/runs',
  operationId: 'openReadinessRun',
  summary: "Open a readiness run for a partner: its /v1 traffic and its receiver's answers count from now on (CONTRACT §21)",
  description:
    "With `probes` (default), the sandbox also sends each adversarial delivery once, loses one create's answer (503 after it is carried out), answers one read 429 with Retry-After, and ends one quote early. A partner's open run, if any, ends (`ended_by: new_run`).",
  body: OpenRunBodySchema,
  data: ReadinessReportSchema,
  successStatus: 201,
  message: 'Readiness run opened',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const listReadinessRunsSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/readiness/runs',
  operationId: 'listReadinessRuns',
  summary: 'Readiness runs with their reports so far, newest first',
  query: RunsQuerySchema,
  data: ReadinessReportSchema.array(),
  message: 'Readiness runs retrieved',
} as const satisfies AnyRouteSpec;
export const getReadinessRunSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/readiness/runs/{id}',
  operationId: 'getReadinessRun',
  summary: "A readiness run's report so far (the final one once it has ended)",
  params: RunParamsSchema,
  data: ReadinessReportSchema,
  message: 'Readiness report',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const finishReadinessRunSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/readiness/runs/{id}/finish',
  operationId: 'finishReadinessRun',
  summary: 'Finish a readiness run: its traffic stops counting; the final report',
  params: RunParamsSchema,
  data: ReadinessReportSchema,
  message: 'Readiness run finished',
  errors: [404, 409],
} as const satisfies AnyRouteSpec;

export function registerReadinessRoutes(api: Api, deps: { readiness: Readiness }): void {
  const { readiness } = deps;
  api.route(openReadinessRunSpec, ({ body, ctx }) => {
    const report = readiness.open(body);
    ctx.status = 201;
    return report;
  });
  api.route(listReadinessRunsSpec, ({ query }) => readiness.list(query.client_id));
  api.route(getReadinessRunSpec, ({ params }) => readiness.report(params.id));
  api.route(finishReadinessRunSpec, ({ params }) => readiness.finish(params.id));
}
