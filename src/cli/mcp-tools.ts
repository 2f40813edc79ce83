import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { KybStatusSchema } from '../auth/partner.schemas';
import type { ControlBody, ControlClient, ControlOperation } from '../client/control-client';
import { SandboxError } from '../client/sandbox-error';
import { ORDER_STATUSES, ORDER_TYPES, PAYOUT_OUTCOMES } from '../orders/model';
import { ENVIRONMENTS } from '../reference';
import { WEBHOOK_EVENTS } from '../shared/events';
import { DeliveryStatusSchema } from '../webhooks';
import { describeFailure } from './remote';

/**
 * The control API as Model Context Protocol tools (CONTRACT §17 `ramp-sandbox mcp`). Each tool
 * makes one call through the control client and answers the JSON the control API answers
 * (`data`, with `meta` for a paged list) as text; a refusal is a tool error whose text is the
 * control API's error envelope `{status:false, code, message}`.
 *
 * The input schemas describe the fields so an agent knows what to send; they check types and
 * the closed vocabularies only. Everything else (formats, ranges, which fields go together)
 * is the sandbox's to judge, so its refusals come back as the envelope, worded as everywhere else.
 */
export function registerControlTools(server: McpServer, control: ControlClient, baseUrl: string): void {
  const call = async (run: () => Promise<unknown>): Promise<CallToolResult> => {
    try {
      return { content: [{ type: 'text', text: JSON.stringify(await run()) }] };
    } catch (error) {
      const text =
        error instanceof SandboxError
          ? JSON.stringify({ status: false, code: error.code, message: error.message })
          : describeFailure(error, baseUrl);
      return { content: [{ type: 'text', text }], isError: true };
    }
  };
  const reference = z.string().min(1).describe('the order reference (any partner, any environment)');
  const page = {
    page: z.number().int().optional().describe('page number, from 1'),
    per_page: z.number().int().optional().describe('items per page (default 50, at most 100)'),
  };
  const environment = z.enum(ENVIRONMENTS).optional().describe('test (default) or live');
  const leg = z
    .looseObject({
      currency: z.string().describe('a currency code, e.g. NGN or USDT'),
      network: z.string().optional().describe('the network of a crypto leg, e.g. base-sepolia (never on a fiat leg)'),
      amount: z.number().optional().describe('the amount, on exactly one of the two legs'),
    })
    .describe('one side of the order');

  server.registerTool(
    'create_partner',
    {
      description:
        'Create a partner (POST /sandbox/partners). Answers its client_id, settings and full test and live keys (shown only here).',
      inputSchema: {
        name: z.string().optional(),
        kyb_status: KybStatusSchema.optional().describe('approved (default), pending or rejected'),
        webhook_url: z.string().optional().describe('where its webhooks go'),
        events: z.array(z.enum(WEBHOOK_EVENTS)).optional().describe('the events it subscribes to (default all)'),
        ip_whitelist: z.array(z.string()).optional().describe('IPs or CIDRs allowed to call /v1 (default any)'),
        client_id: z.string().optional().describe('its own client id instead of a generated one'),
        keys: z.looseObject({}).optional().describe('{test?, live?} key sets to use instead of generated ones'),
      },
    },
    (args) => call(() => control.createPartner({ body: checkedBySandbox<'createPartner'>(args) })),
  );

  server.registerTool(
    'create_order',
    {
      description:
        'Create an order for a partner without signing (POST /sandbox/orders); recipient and customer are filled in when not given. Answers the order detail (reference, status, pay-in instructions).',
      inputSchema: {
        client_id: z.string().describe('the partner'),
        environment,
        from: leg,
        to: leg,
        recipient: z
          .looseObject({})
          .optional()
          .describe('offramp: {institution_code, account_number, account_name}; onramp/swap: {address, memo?}'),
        customer: z.looseObject({}).optional().describe('{reference?, name?, email?, …}'),
        merchant_reference: z.string().optional(),
        partner_fee: z.number().optional().describe('the partner fee in percent (0 to 10)'),
      },
    },
    (args) => call(() => control.sandboxCreateOrder({ body: checkedBySandbox<'sandboxCreateOrder'>(args) })),
  );

  server.registerTool(
    'get_order',
    {
      description: 'An order of any partner with its pay-in, payout and timeline (GET /sandbox/orders/{reference}).',
      inputSchema: { reference },
    },
    ({ reference }) => call(() => control.sandboxGetOrder({ params: { reference } })),
  );

  server.registerTool(
    'pay_in',
    {
      description:
        'Simulate the pay-in arriving (POST /sandbox/orders/{reference}/payin): exactly what is due by default, or a partial or over amount, confirmed or not. Takes effect at once: answers the order.',
      inputSchema: {
        reference,
        amount: z.number().optional().describe('default: exactly what is due'),
        confirmed: z.boolean().optional().describe('default true; false leaves it pending until fulfilled'),
        tx_hash: z.string().optional().describe('a crypto pay-in'),
        tx_reference: z.string().optional().describe('a fiat pay-in'),
      },
    },
    ({ reference, ...body }) => call(() => control.simulatePayin({ params: { reference }, body })),
  );

  server.registerTool(
    'decide_payout',
    {
      description:
        'Decide how the order’s payout ends (POST /sandbox/orders/{reference}/payout): success, fail, revert or partial (with percentage). Applied when the payout runs, at once if it is running.',
      inputSchema: {
        reference,
        outcome: z.enum(PAYOUT_OUTCOMES),
        percentage: z.number().optional().describe('with partial: the share paid out, between 0 and 100'),
      },
    },
    ({ reference, ...body }) => call(() => control.decidePayout({ params: { reference }, body: checkedBySandbox<'decidePayout'>(body) })),
  );

  server.registerTool(
    'simulate',
    {
      description:
        'Take the order to a status in one call along its machine’s shortest path, simulating the pay-ins and payout outcomes it needs and sending every webhook on the way; the clock does not move (POST /sandbox/orders/{reference}/simulate). Answers the order with path, the statuses passed through; an unreachable status is refused with the reachable ones.',
      inputSchema: {
        reference,
        status: z.enum(ORDER_STATUSES).describe('the status to take the order to'),
        reason: z.string().optional().describe('recorded on the timeline entry of the failing step (at most 200 characters)'),
      },
    },
    ({ reference, ...body }) => call(() => control.simulateOrder({ params: { reference }, body })),
  );

  server.registerTool(
    'expire_order',
    { description: 'End the order’s pay-in window now (POST /sandbox/orders/{reference}/expire).', inputSchema: { reference } },
    ({ reference }) => call(() => control.expireOrder({ params: { reference } })),
  );

  server.registerTool(
    'advance_clock',
    {
      description:
        'Move the virtual clock forward, firing every due timer in order (lifecycle steps, webhook retries) (POST /sandbox/clock/advance). Give exactly one of duration, ms or to.',
      inputSchema: {
        duration: z.string().optional().describe('e.g. 90s, 5m, 2h, 1d, 1h30m'),
        ms: z.number().optional(),
        to: z.string().optional().describe('an ISO instant ahead of the virtual now'),
      },
    },
    (args) => call(() => control.advanceClock({ body: checkedBySandbox<'advanceClock'>(args) })),
  );

  server.registerTool('get_clock', { description: 'The virtual clock: now, mode, speed, pending timers (GET /sandbox/clock).' }, () =>
    call(() => control.getClock()),
  );

  server.registerTool(
    'list_orders',
    {
      description: 'Orders of every partner and environment, newest first (GET /sandbox/orders): {data, meta}.',
      inputSchema: {
        client_id: z.string().optional(),
        environment,
        status: z.enum(ORDER_STATUSES).optional(),
        type: z.enum(ORDER_TYPES).optional(),
        ...page,
      },
    },
    (query) => call(() => control.sandboxListOrders({ query })),
  );

  server.registerTool(
    'list_deliveries',
    {
      description:
        'The webhook delivery log, newest first, each with its payload and every attempt (GET /sandbox/webhooks/deliveries): {data, meta}.',
      inputSchema: {
        client_id: z.string().optional(),
        order: z.string().optional().describe('an order reference'),
        event: z.enum(WEBHOOK_EVENTS).optional(),
        status: DeliveryStatusSchema.optional(),
        ...page,
      },
    },
    (query) => call(() => control.listDeliveries({ query })),
  );

  server.registerTool(
    'retry_delivery',
    {
      description: 'Send a delivery again now; answers once the attempt is done (POST /sandbox/webhooks/deliveries/{id}/retry).',
      inputSchema: { id: z.string().min(1).describe('the delivery id (dlv_…)') },
    },
    ({ id }) => call(() => control.retryDelivery({ params: { id } })),
  );

  server.registerTool(
    'list_requests',
    {
      description:
        'The /v1 requests the sandbox received, newest first, a page at a time ({data, meta}), with status, error, signature hint and body excerpts (GET /sandbox/requests).',
      inputSchema: {
        client_id: z.string().optional(),
        environment,
        status: z.string().optional().describe('an HTTP status (401) or class (4xx)'),
        path: z.string().optional().describe('part of the path'),
        q: z.string().optional().describe('a request id, or text in the path or a body (an order reference)'),
        page: z.number().int().optional(),
        per_page: z.number().int().optional().describe('default 50, at most 1000'),
        limit: z.number().int().optional().describe('the same as per_page'),
      },
    },
    (query) => call(() => control.listRequests({ query })),
  );

  server.registerTool(
    'add_fault',
    {
      description:
        'Inject a fault on matching /v1 requests (POST /sandbox/faults): latency, an error status, a dropped or reset connection, a truncated answer or a non-JSON one, before or after the request is carried out, inside a window of virtual time, after skipping N matches, for the next N matches or until cleared.',
      inputSchema: {
        client_id: z.string().optional(),
        environment,
        method: z.string().optional(),
        path: z.string().optional().describe('a glob: * one segment, ** any, e.g. /v1/orders/**'),
        latency_ms: z.union([z.number(), z.looseObject({ min: z.number(), max: z.number() })]).optional(),
        error: z
          .looseObject({ status: z.number().describe('429, 500, 502, 503 or 504'), rate: z.number().optional().describe('0 to 1') })
          .optional(),
        drop: z.number().optional().describe('rate 0 to 1: the connection is closed without an answer'),
        reset: z.number().optional().describe('rate 0 to 1: the connection is reset (ECONNRESET) once the request is read'),
        truncate: z
          .number()
          .int()
          .optional()
          .describe('bytes: the answer is cut after N body bytes (its Content-Length promises the whole), then the connection closes'),
        malformed: z.number().optional().describe('rate 0 to 1: a 200 whose body is not JSON, under a JSON content-type'),
        window: z
          .looseObject({ from: z.string().optional(), to: z.string().optional() })
          .optional()
          .describe(
            'virtual time it applies in, from (inclusive) to (exclusive): each an ISO instant or a duration from now (90s, 5m, 1h30m)',
          ),
        skip: z.number().int().optional().describe('the first N matching requests go through untouched, then it applies'),
        phase: z
          .enum(['before', 'after'])
          .optional()
          .describe('before (default): not carried out; after: carried out, then the answer replaced'),
        times: z.number().int().optional().describe('applies to the next N matching requests, then is removed'),
      },
    },
    (args) => call(() => control.addFault({ body: checkedBySandbox<'addFault'>(args) })),
  );

  server.registerTool(
    'clear_faults',
    {
      description: 'Remove one fault by id (DELETE /sandbox/faults/{id}), or every fault without one (DELETE /sandbox/faults).',
      inputSchema: { id: z.string().optional().describe('flt_…') },
    },
    ({ id }) => call(() => (id === undefined ? control.clearFaults() : control.removeFault({ params: { id } }))),
  );

  server.registerTool(
    'get_state',
    { description: 'The whole sandbox state as one JSON document (GET /sandbox/state), to restore later with put_state.' },
    () => call(() => control.getState()),
  );

  server.registerTool(
    'put_state',
    {
      description:
        'Replace the whole sandbox state with a document get_state gave (PUT /sandbox/state); a document that does not validate changes nothing.',
      inputSchema: { document: z.looseObject({}).describe('the state document') },
    },
    ({ document }) => call(() => control.putState({ body: checkedBySandbox<'putState'>(document) })),
  );
}

/**
 * A tool's arguments as the body of its operation. The tool's schema only describes the body;
 * the sandbox validates it (and answers the envelope when it refuses), so the type is asserted here.
 */
function checkedBySandbox<K extends ControlOperation>(args: object): ControlBody<K> {
  return args as ControlBody<K>;
}
