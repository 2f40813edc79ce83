// CONTRACT §21 on the wire: the body that opens a run, the report, and the list's query.
import * as z from 'zod';
import { ENVIRONMENTS } from '../../reference';
import { DateTime } from '../../shared/schemas';

export const OpenRunBodySchema = z
  .object({
    client_id: z.string().min(1).max(128).meta({ description: 'the partner whose traffic the run counts', example: 'ptr_acme' }),
    environment: z.enum(ENVIRONMENTS).optional().meta({ description: 'the environment whose traffic counts (default test)' }),
    probes: z.boolean().optional().meta({ description: 'exercise what ordinary traffic rarely shows, once each (default true)' }),
    scope: z.enum(['all', 'receiver']).optional().meta({
      description:
        "all (default): the API client and the receiver; receiver: only the receiver's answers count (a scenario run, whose /v1 calls are the runner's, not the partner's): the client checks stay not_exercised and the verdict is at best incomplete",
    }),
  })
  .meta({ id: 'ReadinessRunBody', example: { client_id: 'ptr_acme', environment: 'test', probes: true } });
export type OpenRunBody = z.output<typeof OpenRunBodySchema>;

export const RunParamsSchema = z.object({ id: z.string().min(1).max(64).meta({ description: 'a readiness run id', example: 'rdy_1' }) });
export const RunsQuerySchema = z.object({
  client_id: z.string().min(1).max(128).optional().meta({ description: "only this partner's runs" }),
});

const EvidenceSchema = z
  .object({
    request_id: z.string().optional().meta({ description: 'a request of the inspector (GET /sandbox/requests/{id})' }),
    delivery_id: z.string().optional().meta({ description: 'a delivery of the log (GET /sandbox/webhooks/deliveries/{id})' }),
    order: z.string().optional().meta({ description: 'an order reference' }),
    note: z.string(),
  })
  .meta({ id: 'ReadinessEvidence' });

export const CheckResultSchema = z
  .object({
    id: z.string().meta({ example: 'signing' }),
    side: z.enum(['client', 'receiver']),
    clause: z.string().meta({ example: 'spec §5.2' }),
    title: z.string(),
    status: z.enum(['pass', 'fail', 'not_exercised']),
    applies: z.boolean().meta({
      description: 'whether the partner used what the check watches: a not_exercised check that applies makes the verdict incomplete',
    }),
    evidence: z.array(EvidenceSchema).meta({ description: 'at most 20 items' }),
    fix: z.string(),
  })
  .meta({ id: 'ReadinessCheck' });

const StatusCoverageSchema = z.object({ reached: z.array(z.string()), reachable: z.array(z.string()) });
const EventCoverageSchema = z.object({ acknowledged: z.array(z.string()), reachable: z.array(z.string()) });

export const CoverageSchema = z
  .object({
    order_types: z.array(z.string()).meta({ description: 'the order types the partner created in the run' }),
    statuses: z
      .record(z.string(), StatusCoverageSchema)
      .meta({ description: 'per order type used: the statuses its orders reached, out of those the machine can reach' }),
    events: z
      .record(z.string(), EventCoverageSchema)
      .meta({ description: 'per order type used: the events the receiver acknowledged, out of those the machine can emit' }),
    error_codes: z.object({ seen: z.array(z.string()), possible: z.array(z.string()) }),
  })
  .meta({ id: 'ReadinessCoverage' });

export const ProbeRecordSchema = z
  .object({
    kind: z.enum([
      'bad_signature',
      'stale_timestamp',
      'tampered_body',
      'duplicate',
      'out_of_order',
      'lost_response',
      'rate_limited',
      'quote_ended',
    ]),
    status: z
      .enum(['planned', 'armed', 'done'])
      .meta({ description: 'planned: waiting for its occasion; armed: a fault waits for the request; done: it happened' }),
    request_id: z.string().optional(),
    delivery_id: z.string().optional(),
    note: z.string().optional(),
  })
  .meta({ id: 'ReadinessProbe' });

export const ReadinessReportSchema = z
  .object({
    id: z.string().meta({ example: 'rdy_1' }),
    client_id: z.string(),
    environment: z.enum(ENVIRONMENTS),
    scope: z.enum(['all', 'receiver']),
    opened_at: DateTime.meta({ description: 'wall time' }),
    finished_at: DateTime.optional(),
    ended_by: z
      .enum(['finish', 'reset', 'restore', 'new_run', 'evicted'])
      .optional()
      .meta({ description: 'how a run that no longer counts ended' }),
    probes: z.array(ProbeRecordSchema),
    counted: z.object({
      requests: z.number().int().nonnegative(),
      deliveries: z.number().int().nonnegative(),
      truncated: z
        .boolean()
        .meta({ description: 'the run stopped counting at its limit of facts (memory is bounded): later traffic did not count' }),
    }),
    verdict: z.enum(['ready', 'not_ready', 'incomplete']),
    checks: z.array(CheckResultSchema),
    coverage: CoverageSchema,
  })
  .meta({ id: 'ReadinessReport' });
export type ReadinessReport = z.output<typeof ReadinessReportSchema>;
export type CheckResult = z.output<typeof CheckResultSchema>;
export type Coverage = z.output<typeof CoverageSchema>;
export type ProbeRecord = z.output<typeof ProbeRecordSchema>;
