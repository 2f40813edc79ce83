import { z } from 'zod';
import { FaultInputSchema, FaultSchema, type FaultStore } from '../faults/fault.store';
import type { Api } from '../api';
import { RecordedRequestSchema, RequestsQuerySchema, type RequestLog } from '../request-log';
import { notFound } from '../../shared/errors';

const admin = { auth: 'admin', tag: 'sandbox' } as const;
const IdParamsSchema = z.object({ id: z.string() });

/** CONTRACT §11 request inspector routes. */
export function registerRequestRoutes(api: Api, deps: { requests: RequestLog }): void {
  const { requests } = deps;
  api.route(
    { ...admin, method: 'GET', path: '/sandbox/requests', operationId: 'listRequests', summary: 'The /v1 requests the sandbox received, newest first', query: RequestsQuerySchema, data: z.array(RecordedRequestSchema), message: 'Requests retrieved' },
    ({ query }) => requests.list(query),
  );
  api.route(
    { ...admin, method: 'GET', path: '/sandbox/requests/{id}', operationId: 'getRequest', summary: 'One recorded request', params: IdParamsSchema, data: RecordedRequestSchema, message: 'Request retrieved', errors: [404] },
    ({ params }) => {
      const entry = requests.get(params.id);
      if (!entry) throw notFound(`Request ${params.id} not found (the inspector keeps the last ${requests.limit})`);
      return entry;
    },
  );
  api.route(
    { ...admin, method: 'DELETE', path: '/sandbox/requests', operationId: 'clearRequests', summary: 'Forget every recorded request', data: z.object({ cleared: z.number().int() }), message: 'Requests cleared' },
    () => {
      const cleared = requests.size;
      requests.clear();
      return { cleared };
    },
  );
}

/** CONTRACT §12 fault injection routes. */
export function registerFaultRoutes(api: Api, deps: { faults: FaultStore }): void {
  const { faults } = deps;
  api.route(
    { ...admin, method: 'POST', path: '/sandbox/faults', operationId: 'addFault', summary: 'Inject a fault on matching /v1 requests: latency, 429/5xx, dropped connection', body: FaultInputSchema, data: FaultSchema, message: 'Fault added' },
    ({ body }) => faults.add(body),
  );
  api.route(
    { ...admin, method: 'GET', path: '/sandbox/faults', operationId: 'listFaults', summary: 'Faults in force', data: z.array(FaultSchema), message: 'Faults retrieved' },
    () => faults.list(),
  );
  api.route(
    { ...admin, method: 'DELETE', path: '/sandbox/faults/{id}', operationId: 'removeFault', summary: 'Remove one fault', params: IdParamsSchema, data: FaultSchema, message: 'Fault removed', errors: [404] },
    ({ params }) => {
      const fault = faults.get(params.id);
      if (!fault || !faults.remove(params.id)) throw notFound(`Fault ${params.id} not found`);
      return fault;
    },
  );
  api.route(
    { ...admin, method: 'DELETE', path: '/sandbox/faults', operationId: 'clearFaults', summary: 'Remove every fault', data: z.object({ removed: z.number().int() }), message: 'Faults removed' },
    () => {
      const removed = faults.size;
      faults.clear();
      return { removed };
    },
  );
}
