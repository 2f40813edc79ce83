import * as z from 'zod';
import { FaultInputSchema, FaultSchema } from '../faults/fault.schemas';
import type { FaultStore } from '../faults/fault.store';
import type { Api, AnyRouteSpec } from '../api/api';
import type { RequestLog } from '../inspector/request-log';
import { RecordedRequestSchema, RequestsQuerySchema } from '../inspector/request-log.schemas';
import { notFound } from '../../shared/errors';

const admin = { auth: 'admin', tag: 'sandbox' } as const;
const RequestIdParamsSchema = z.object({ id: z.string().min(1).meta({ description: 'a recorded request id', example: 'req_1' }) });
const FaultIdParamsSchema = z.object({ id: z.string().min(1).meta({ description: 'a fault id', example: 'flt_1' }) });
const ClearedSchema = z.object({ cleared: z.number().int().meta({ example: 12 }) }).meta({ id: 'RequestsCleared' });
const RemovedSchema = z.object({ removed: z.number().int().meta({ example: 1 }) }).meta({ id: 'FaultsRemoved' });

// The specs are exported so the control client (src/client/control-client.ts) is typed by them.
export const listRequestsSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/requests',
  operationId: 'listRequests',
  summary: 'The /v1 requests the sandbox received, newest first, a page at a time',
  query: RequestsQuerySchema,
  data: RecordedRequestSchema,
  paged: true,
  message: 'Requests retrieved',
} as const satisfies AnyRouteSpec;
export const getRequestSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/requests/{id}',
  operationId: 'getRequest',
  summary: 'One recorded request',
  params: RequestIdParamsSchema,
  data: RecordedRequestSchema,
  message: 'Request retrieved',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const clearRequestsSpec = {
  ...admin,
  method: 'DELETE',
  path: '/sandbox/requests',
  operationId: 'clearRequests',
  summary: 'Forget every recorded request',
  data: ClearedSchema,
  message: 'Requests cleared',
} as const satisfies AnyRouteSpec;
export const addFaultSpec = {
  ...admin,
  method: 'POST',
  path: '/sandbox/faults',
  operationId: 'addFault',
  summary: 'Inject a fault on matching /v1 requests: latency, 429/5xx, dropped connection',
  body: FaultInputSchema,
  data: FaultSchema,
  message: 'Fault added',
} as const satisfies AnyRouteSpec;
export const listFaultsSpec = {
  ...admin,
  method: 'GET',
  path: '/sandbox/faults',
  operationId: 'listFaults',
  summary: 'Faults in force',
  data: z.array(FaultSchema),
  message: 'Faults retrieved',
} as const satisfies AnyRouteSpec;
export const removeFaultSpec = {
  ...admin,
  method: 'DELETE',
  path: '/sandbox/faults/{id}',
  operationId: 'removeFault',
  summary: 'Remove one fault',
  params: FaultIdParamsSchema,
  data: FaultSchema,
  message: 'Fault removed',
  errors: [404],
} as const satisfies AnyRouteSpec;
export const clearFaultsSpec = {
  ...admin,
  method: 'DELETE',
  path: '/sandbox/faults',
  operationId: 'clearFaults',
  summary: 'Remove every fault',
  data: RemovedSchema,
  message: 'Faults removed',
} as const satisfies AnyRouteSpec;

/** CONTRACT §11 request inspector routes. */
export function registerRequestRoutes(api: Api, deps: { requests: RequestLog }): void {
  const { requests } = deps;
  api.route(listRequestsSpec, ({ query }) => {
    const perPage = query.per_page ?? query.limit ?? 50;
    const { items, total } = requests.page(query);
    return {
      page: items,
      meta: { total, per_page: perPage, current_page: query.page, last_page: Math.max(1, Math.ceil(total / perPage)) },
    };
  });
  api.route(getRequestSpec, ({ params }) => {
    const entry = requests.get(params.id);
    if (!entry) throw notFound(`Request ${params.id} not found (the inspector keeps the last ${requests.limit})`);
    return entry;
  });
  api.route(clearRequestsSpec, () => {
    const cleared = requests.size;
    requests.clear();
    return { cleared };
  });
}

/** CONTRACT §12 fault injection routes. */
export function registerFaultRoutes(api: Api, deps: { faults: FaultStore }): void {
  const { faults } = deps;
  api.route(addFaultSpec, ({ body }) => faults.add(body));
  api.route(listFaultsSpec, () => faults.list());
  api.route(removeFaultSpec, ({ params }) => {
    const fault = faults.get(params.id);
    if (!fault || !faults.remove(params.id)) throw notFound(`Fault ${params.id} not found`);
    return fault;
  });
  api.route(clearFaultsSpec, () => {
    const removed = faults.size;
    faults.clear();
    return { removed };
  });
}
