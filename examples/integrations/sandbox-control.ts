/**
 * The few control-API calls (CONTRACT §4, §21) the session driver needs to play the parts a
 * partner does not: the customer paying, time passing, and the readiness run around it all.
 * Plain fetch, so the driver runs against any sandbox, in process or `npm start`.
 */

export interface KeySet {
  public_key: string;
  secret_key: string;
  encryption_key: string;
}

export interface PartnerData {
  client_id: string;
  keys: { test: KeySet; live: KeySet };
}

/** CONTRACT §21: the readiness report. */
export interface ReadinessReport {
  id: string;
  client_id: string;
  environment: string;
  verdict: 'ready' | 'not_ready' | 'incomplete';
  checks: Array<{
    id: string;
    clause: string;
    title: string;
    status: 'pass' | 'fail' | 'not_exercised';
    evidence: Array<{ request_id?: string; delivery_id?: string; order?: string; note: string }>;
    fix: string;
  }>;
  coverage: unknown;
  [field: string]: unknown;
}

export class SandboxControl {
  constructor(
    readonly baseUrl: string,
    private readonly adminToken?: string,
  ) {}

  createPartner(body: { name?: string; webhook_url?: string }): Promise<PartnerData> {
    return this.call('POST', '/sandbox/partners', body);
  }

  /** Moves the virtual clock (`90s`, `1h`), firing every due timer (webhooks included). */
  advance(duration: string): Promise<unknown> {
    return this.call('POST', '/sandbox/clock/advance', { duration });
  }

  /** The customer pays exactly what is due. */
  payin(reference: string): Promise<unknown> {
    return this.call('POST', `/sandbox/orders/${encodeURIComponent(reference)}/payin`, {});
  }

  /**
   * Resolves once none of the partner's deliveries is being attempted (CONTRACT §4 delivery log,
   * `in_flight`): the readiness probes are sent as the receiver acknowledges deliveries, so the
   * last ones may still be on their way when the clock has stopped.
   */
  async quiet(clientId: string, timeoutMs = 15_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const deliveries = await this.call<Array<{ id: string; in_flight: boolean }>>(
        'GET',
        `/sandbox/webhooks/deliveries?client_id=${encodeURIComponent(clientId)}`,
      );
      const busy = deliveries.filter((d) => d.in_flight);
      if (busy.length === 0) return;
      if (Date.now() > until) throw new Error(`deliveries still in flight after ${timeoutMs} ms: ${busy.map((d) => d.id).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  openReadiness(body: { client_id: string; environment?: 'test' | 'live'; probes?: boolean }): Promise<ReadinessReport> {
    return this.call('POST', '/sandbox/readiness/runs', body);
  }

  readiness(id: string): Promise<ReadinessReport> {
    return this.call('GET', `/sandbox/readiness/runs/${encodeURIComponent(id)}`);
  }

  finishReadiness(id: string): Promise<ReadinessReport> {
    return this.call('POST', `/sandbox/readiness/runs/${encodeURIComponent(id)}/finish`, {});
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.adminToken) headers.authorization = `Bearer ${this.adminToken}`;
    const res = await fetch(this.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json().catch(() => ({}))) as { data?: T; code?: string; message?: string };
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${json.code ?? ''} ${json.message ?? ''}`.trim());
    return json.data as T;
  }
}
