// Readiness (CONTRACT §21) per partner: `#/readiness/{client_id}?run=rdy_…`. Its runs (open one,
// the list with verdicts), and a run's report: each check with its status, clause, title,
// evidence linked to the request, delivery and order pages, and fix; coverage drawn on the
// lifecycle diagram of each order type used; the probes; finish. An open run's report follows
// the partner's traffic (the live feed's request, delivery and order messages) and is read again
// every few seconds too (a run finished elsewhere, by the CLI say, sends no message).
import { useEffect, useState } from 'preact/hooks';
import { post, qs } from './api.js';
import { Diagram } from './diagram.js';
import { lifecycles, useMeta } from './meta.js';
import { usePartners } from './orders.js';
import { go, hashOf, useRoute } from './router.js';
import { Copyable, ErrorBox, html, link, Section, Select, Time, useAction, useResource } from './ui.js';
/** @import { LiveKind } from './types' */
/** @import { Resource } from './ui.js' */
/** @import { OpenRunBody, Partner, ReadinessCheck, ReadinessEvidence, ReadinessProbe, ReadinessReport } from './types' */

/** Wall ms between two reads of an open run's report, besides the live feed's messages. */
const POLL_MS = 3000;
/** What changes an open run's report: the partner's /v1 requests, its deliveries, its orders' statuses. */
const LIVE = /** @type {LiveKind[]} */ (['request', 'delivery', 'order']);
/** Evidence shown at once per check; the rest behind "more". */
const SHOWN = 3;

/** @type {Record<ReadinessReport['verdict'], string>} */
const VERDICT_TEXT = { ready: 'ready', not_ready: 'not ready', incomplete: 'incomplete' };
/** @type {Record<ReadinessCheck['status'], string>} */
const STATUS_TEXT = { pass: 'pass', fail: 'fail', not_exercised: 'not exercised' };
/** @type {Record<NonNullable<ReadinessReport['ended_by']>, string>} */
const ENDED_SHORT = { finish: 'finished', reset: 'reset', restore: 'state restored', new_run: 'newer run', evicted: 'evicted' };
/** @type {Record<NonNullable<ReadinessReport['ended_by']>, string>} */
const ENDED_BY = {
  finish: 'finished',
  reset: 'ended by a reset',
  restore: 'ended by a restored state (PUT /sandbox/state)',
  new_run: 'ended by a newer run',
  evicted: 'ended (evicted: too many runs)',
};

/** @param {{ verdict: ReadinessReport['verdict'] }} props */
export function Verdict({ verdict }) {
  return html`<span class=${`status vd-${verdict}`} data-testid="verdict" data-verdict=${verdict}>${VERDICT_TEXT[verdict]}</span>`;
}

/**
 * Reads `path` and reads it again on the live feed's messages and every few seconds while `live`.
 * @template T
 * @param {string} path
 * @param {boolean} live
 * @returns {Resource<T>}
 */
function useFollowed(path, live) {
  /** @type {Resource<T>} */
  const resource = useResource(path, live ? LIVE : []);
  const reload = resource.reload;
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => void reload(), POLL_MS);
    return () => clearInterval(timer);
  }, [live, path]);
  return resource;
}

/** A partner's readiness: its runs and the report of the one in the URL (else the newest). @param {{ clientId?: string }} props */
export function ReadinessScreen({ clientId }) {
  const route = useRoute();
  const partners = usePartners();
  /** @type {Partner[]} */
  const list = partners.data ?? [];
  // `#/readiness` alone: the first partner's (the demo partner, unless it was changed).
  useEffect(() => {
    if (!clientId && list[0]) go(hashOf('readiness', list[0].client_id), { replace: true });
  }, [clientId, list[0]?.client_id]);
  if (!clientId)
    return html`<div class="screen"><h1>Readiness</h1><${ErrorBox} error=${partners.error} /><p class="loading">Loading the partners…</p></div>`;
  const partner = list.find((p) => p.client_id === clientId);
  return html`<${PartnerReadiness} key=${clientId} clientId=${clientId} name=${partner?.name ?? clientId} noReceiver=${partner !== undefined && !partner.webhook_url} run=${route.params.run} />`;
}

/** @param {{ clientId: string, name: string, noReceiver: boolean, run: string | undefined }} props */
function PartnerReadiness({ clientId, name, noReceiver, run }) {
  /** @type {Resource<ReadinessReport[]>} */
  const runs = useFollowed(`/sandbox/readiness/runs${qs({ client_id: clientId })}`, true);
  const shown = run ?? runs.data?.[0]?.id;
  const panel = html`<${Runs} clientId=${clientId} runs=${runs} shown=${shown} noReceiver=${noReceiver} />`;
  return html`<div class="screen readiness" data-testid="readiness" data-client=${clientId}>
    <div class="crumbs"><a href=${hashOf('partners')}>← Partners</a> · <a href=${link('partners', clientId)}>${name}</a></div>
    <div class="screen-head"><h1>Readiness of ${name}</h1><${Copyable} value=${clientId} label="the client id" /></div>
    <p class="lead muted">Open a run, point the partner's integration at this sandbox, then finish: every check says what the API asks (its clause), what was seen, and how to fix it. Also <code>ramp-sandbox readiness</code> and <code>POST /sandbox/readiness/runs</code>.</p>
    <${Report} id=${shown} clientId=${clientId} name=${name} loaded=${runs.data !== undefined} onChanged=${() => runs.reload()} runsPanel=${panel} />
  </div>`;
}

/**
 * The screen's two columns: the report (checks) in the wide one; the runs, coverage and probes beside.
 * @param {import('./ui.js').Html} main
 * @param {...unknown} side
 */
const columns = (main, ...side) => html`<div class="columns"><div class="col-main">${main}</div><div class="col-side">${side}</div></div>`;

/**
 * The partner's runs, newest first, and the form that opens one.
 * @param {{ clientId: string, runs: Resource<ReadinessReport[]>, shown: string | undefined, noReceiver: boolean }} props
 */
function Runs({ clientId, runs, shown, noReceiver }) {
  const meta = useMeta();
  const [environment, setEnvironment] = useState('test');
  const [probes, setProbes] = useState(true);
  const [scope, setScope] = useState('all');
  const action = useAction();
  const list = runs.data ?? [];
  const current = list.find((r) => !r.finished_at);
  /** @param {Event} e */
  const open = async (e) => {
    e.preventDefault();
    /** @type {OpenRunBody} */
    const body = { client_id: clientId, environment, probes, scope };
    const run = await action.run(
      (/** @type {ReadinessReport} */ r) => `Opened ${r.id}: ${clientId}'s ${r.environment} traffic counts from now on`,
      /** @returns {Promise<ReadinessReport>} */ () => post('/sandbox/readiness/runs', body),
    );
    if (run) {
      await runs.reload();
      go(hashOf('readiness', clientId, { run: run.id }));
    }
  };
  return html`<${Section} title="Runs" id="readiness-runs">
    <form class="form-grid open-run" onSubmit=${open} aria-describedby=${current ? 'open-run-note' : undefined}>
      <${Select} label="Environment" name="environment" value=${environment} onChange=${setEnvironment} options=${meta.environments} />
      <${Select} label="What counts" name="scope" value=${scope} onChange=${setScope} options=${[['all', 'API client and receiver'], ['receiver', 'receiver only']]} />
      <label class="check probes"><input type="checkbox" name="probes" checked=${probes} onChange=${() => setProbes(!probes)} /> Probes <span class="muted small">(adversarial deliveries, a lost create, a 429, a quote ended early)</span></label>
      <div class="form-actions"><button class="primary" type="submit" data-action="open-run" disabled=${action.busy}>${current ? 'Open a new run' : 'Open a run'}</button></div>
    </form>
    ${noReceiver ? html`<p class="hint small" data-testid="no-receiver">This partner has no webhook URL: no delivery reaches a receiver, so the receiver checks stay not exercised. Set one in <a href=${link('partners', clientId)}>its settings</a>.</p>` : null}
    ${current ? html`<p class="muted small" id="open-run-note">A new run ends ${current.id}, still open (its report is kept).</p>` : null}
    ${action.done && !action.error ? html`<p class="ok small" data-testid="open-result">${action.done}</p>` : null}
    <${ErrorBox} error=${action.error ?? runs.error} />
    ${
      list.length
        ? html`<table class="list cards runs" data-testid="runs">
        <thead><tr><th>Run</th><th>Verdict</th><th>Opened</th><th>Ended</th></tr></thead>
        <tbody>${list.map(
          (
            r,
          ) => html`<tr key=${r.id} data-run=${r.id} class=${r.id === shown ? 'selected' : ''} aria-current=${r.id === shown ? 'true' : undefined}>
          <td class="key"><a class="mono" href=${hashOf('readiness', clientId, { run: r.id })}>${r.id}</a> <span class="muted small">${r.environment}</span></td>
          <td data-label="Verdict"><${Verdict} verdict=${r.verdict} /></td>
          <td data-label="Opened"><${Time} iso=${r.opened_at} /></td>
          <td data-label="Ended">${r.finished_at ? html`<time datetime=${r.finished_at} title=${r.finished_at}>${ENDED_SHORT[r.ended_by ?? 'finish']}</time>` : html`<span class="pill open-pill">open</span>`}</td></tr>`,
        )}</tbody>
      </table>`
        : runs.data
          ? html`<p class="empty">No runs yet.</p>`
          : null
    }
  </${Section}>`;
}

/**
 * One run's report (`id`, none when the partner has no run): verdict, checks, coverage, probes;
 * Finish while it is open. `runsPanel` goes first in the side column. One instance whichever run
 * is shown, so the runs panel beside it keeps its state (what an open said) when the run changes.
 * @param {{ id: string | undefined, clientId: string, name: string, loaded: boolean, onChanged: () => void, runsPanel: import('./ui.js').Html }} props
 */
function Report({ id, clientId, name, loaded, onChanged, runsPanel }) {
  const path = id ? `/sandbox/readiness/runs/${encodeURIComponent(id)}` : '';
  // Followed until it is seen finished. The data may still be the last run's while this one loads.
  const [ended, setEnded] = useState(/** @type {string | undefined} */ (undefined));
  /** @type {Resource<ReadinessReport>} */
  const report = useFollowed(path, ended !== id);
  const r = report.data?.id === id ? report.data : undefined;
  useEffect(() => {
    if (r?.finished_at) setEnded(r.id);
  }, [r?.id, r?.finished_at]);
  const action = useAction();
  const [finished, setFinished] = useState(/** @type {string | undefined} */ (undefined));
  const finish = () =>
    action.run(
      (/** @type {ReadinessReport} */ f) => `Finished ${f.id}: ${VERDICT_TEXT[f.verdict]}`,
      async () => {
        /** @type {ReadinessReport} */
        const final = await post(`${path}/finish`);
        setFinished(final.id);
        await report.reload();
        onChanged();
        return final;
      },
    );
  if (!id) {
    return columns(
      loaded
        ? html`<${Section} title="No run yet" id="readiness-report"><p class="empty" data-testid="empty">${name} has no readiness run. Open one: from then on its <code>/v1</code> traffic and its receiver's answers count.</p></${Section}>`
        : html`<p class="loading">Loading the runs…</p>`,
      runsPanel,
    );
  }
  if (!r) {
    return columns(
      html`<${Section} title=${`Run ${id}`} id="readiness-report">${report.error ? html`<${ErrorBox} error=${report.error} />` : html`<p class="loading">Loading ${id}…</p>`}</${Section}>`,
      runsPanel,
    );
  }
  if (r.client_id !== clientId) {
    return columns(
      html`<${Section} title=${`Run ${id}`} id="readiness-report"><p class="empty">${id} is a run of <a href=${hashOf('readiness', r.client_id, { run: id })}>${r.client_id}</a>.</p></${Section}>`,
      runsPanel,
    );
  }
  /** @type {Record<ReadinessCheck['status'], number>} */
  const counts = { pass: 0, fail: 0, not_exercised: 0 };
  for (const c of r.checks) counts[c.status]++;
  const finishButton = r.finished_at
    ? null
    : html`<button type="button" class="primary" data-action="finish-run" disabled=${action.busy} onClick=${finish}>Finish run</button>`;
  return columns(
    html`<${Section} title=${html`Run <span class="mono">${r.id}</span>`} id="readiness-report" actions=${finishButton}>
      <div class="report-head" data-testid="report" data-run=${r.id} data-verdict=${r.verdict} data-open=${r.finished_at ? 'false' : 'true'}>
        <${Verdict} verdict=${r.verdict} />
        ${r.scope === 'receiver' ? html`<span class="pill" title="Only the receiver's answers count: the client checks stay not exercised">receiver only</span>` : null}
        <span class="small">${r.finished_at ? html`${ENDED_BY[r.ended_by ?? 'finish']} <${Time} iso=${r.finished_at} />` : html`<span class="pill open-pill">open</span> <span class="muted">updates as traffic arrives</span>`}</span>
      </div>
      <p class="small verdict-why" data-testid="verdict-why">${verdictWhy(r)}</p>
      <p class="small muted" data-testid="counts"><strong class="ok">${counts.pass} pass</strong> · <strong class=${counts.fail ? 'bad' : ''}>${counts.fail} fail</strong> · ${counts.not_exercised} not exercised · ${r.environment} · opened <${Time} iso=${r.opened_at} /> · counted ${r.counted.requests} request${r.counted.requests === 1 ? '' : 's'} and ${r.counted.deliveries} deliver${r.counted.deliveries === 1 ? 'y' : 'ies'}</p>
      ${r.counted.truncated ? html`<p class="hint small">This run reached its limit of facts (memory is bounded): later traffic did not count.</p>` : null}
      ${action.done && !action.error && finished === r.id ? html`<p class="ok small" data-testid="action-result">${action.done}</p>` : null}
      <${ErrorBox} error=${action.error ?? report.error} />
      <${Checks} title="Your API client" side="client" checks=${r.checks.filter((c) => c.side === 'client')} />
      <${Checks} title="Your webhook receiver" side="receiver" checks=${r.checks.filter((c) => c.side === 'receiver')} />
    </${Section}>`,
    runsPanel,
    html`<${Coverage} report=${r} />`,
    r.probes.length ? html`<${Probes} probes=${r.probes} />` : null,
  );
}

/**
 * The verdict in words (CONTRACT §21: ready only when nothing failed and nothing that applies
 * stayed not exercised).
 * @param {ReadinessReport} r
 */
function verdictWhy(r) {
  const failed = r.checks.filter((c) => c.status === 'fail').map((c) => c.id);
  const missing = r.checks.filter((c) => c.status === 'not_exercised' && c.applies).map((c) => c.id);
  if (failed.length) return `Not ready: ${failed.join(', ')} failed.`;
  if (r.verdict === 'incomplete')
    return missing.length
      ? `Incomplete: ${missing.join(', ')} not exercised yet, and they apply to what the partner used.`
      : 'Incomplete: nothing passed yet (no traffic is no evidence).';
  return 'Ready: no check failed, and every check that applies to what the partner used passed.';
}

/**
 * The checks of one side, in the report's order.
 * @param {{ title: string, side: string, checks: ReadinessCheck[] }} props
 */
function Checks({ title, side, checks }) {
  return html`<h3 id=${`checks-${side}`}>${title}</h3>
    <table class="list cards checks" data-testid=${`checks-${side}`} aria-labelledby=${`checks-${side}`}>
      <colgroup><col class="c-status" /><col class="c-check" /><col class="c-evidence" /><col class="c-fix" /></colgroup>
      <thead><tr><th>Status</th><th>Check</th><th>Evidence</th><th>Fix</th></tr></thead>
      <tbody>${checks.map(
        (c) => html`<tr key=${c.id} class=${`check-row ck-row-${c.status}`} data-check=${c.id} data-status=${c.status}>
        <td class="key"><span class=${`status ck-${c.status}`}>${STATUS_TEXT[c.status]}</span>${c.status === 'not_exercised' ? html`<div class="muted small">${c.applies ? 'needed' : 'not used'}</div>` : null}</td>
        <td data-label="Check"><div class="check-title">${c.title}</div><div class="small"><code>${c.id}</code> · <span class="clause">${c.clause}</span></div></td>
        <td data-label="Evidence" class="evidence"><${EvidenceList} items=${c.evidence} check=${c.id} /></td>
        <td data-label="Fix" class=${`fix small${c.status === 'pass' ? ' muted' : ''}`}>${c.fix}</td></tr>`,
      )}</tbody>
    </table>`;
}

/**
 * A check's evidence: the first few, the rest behind a disclosure.
 * @param {{ items: ReadinessEvidence[], check: string }} props
 */
function EvidenceList({ items, check }) {
  if (!items.length) return html`<span class="muted small">none yet</span>`;
  /** @param {ReadinessEvidence} e */
  const item = (e) =>
    html`<li>${e.request_id ? html`<a class="mono" href=${link('requests', e.request_id)} aria-label=${`request ${e.request_id}`}>${e.request_id}</a> ` : null}${e.delivery_id ? html`<a class="mono" href=${link('deliveries', e.delivery_id)} aria-label=${`delivery ${e.delivery_id}`}>${e.delivery_id}</a> ` : null}${e.order ? html`<a class="mono" href=${link('orders', e.order)} aria-label=${`order ${e.order}`}>${e.order}</a> ` : null}<span class="note">${e.note}</span></li>`;
  const first = items.slice(0, SHOWN);
  const rest = items.slice(SHOWN);
  return html`<ul class="evidence-list" aria-label=${`Evidence of ${check}`}>${first.map(item)}</ul>
    ${rest.length ? html`<details class="more"><summary>${rest.length} more</summary><ul class="evidence-list">${rest.map(item)}</ul></details>` : null}`;
}

/**
 * Per order type used: the statuses reached on the machine's own diagram (the rest dimmed), the
 * events acknowledged; and the error codes seen.
 * @param {{ report: ReadinessReport }} props
 */
function Coverage({ report }) {
  const c = report.coverage;
  return html`<${Section} title="Coverage" id="readiness-coverage">
    ${
      c.order_types.length === 0
        ? html`<p class="empty" data-testid="coverage-empty">No orders in this run yet: coverage shows per order type once the partner creates one.</p>`
        : c.order_types.map((type) => {
            const statuses = c.statuses[type] ?? { reached: [], reachable: [] };
            const events = c.events[type] ?? { acknowledged: [], reachable: [] };
            const graph = lifecycles[type];
            const missing = statuses.reachable.filter((s) => !statuses.reached.includes(s));
            const unacked = events.reachable.filter((e) => !events.acknowledged.includes(e));
            return html`<div class="coverage-type" data-testid="coverage" data-type=${type}>
            <h3>${type}: ${statuses.reached.length} of ${statuses.reachable.length} statuses, ${events.acknowledged.length} of ${events.reachable.length} events</h3>
            ${graph ? html`<${Diagram} graph=${graph} reached=${statuses.reached} />` : null}
            <dl class="kv small coverage-lists">
              <dt>Reached</dt><dd class="mono">${statuses.reached.join(', ') || html`<span class="muted">none</span>`}</dd>
              <dt>Not reached</dt><dd class="mono muted">${missing.join(', ') || 'none'}</dd>
              <dt>Acknowledged</dt><dd class="mono">${events.acknowledged.join(', ') || html`<span class="muted">none</span>`}</dd>
              <dt>Not acknowledged</dt><dd class="mono muted">${unacked.join(', ') || 'none'}</dd>
            </dl>
          </div>`;
          })
    }
    ${c.order_types.length ? html`<div class="legend small"><span class="node-key reached"></span> reached <span class="node-key dim"></span> not reached</div>` : null}
    <h3>Error codes seen</h3>
    <p class="small" data-testid="error-codes">${c.error_codes.seen.length ? c.error_codes.seen.map((code) => html`<span class="pill mono">${code}</span> `) : html`<span class="muted">none yet</span>`} <span class="muted">of ${c.error_codes.possible.length} a /v1 request can get</span></p>
  </${Section}>`;
}

/** @type {Record<ReadinessProbe['kind'], string>} */
const PROBE_TEXT = {
  bad_signature: 'delivery with a bad signature',
  stale_timestamp: 'delivery with a stale timestamp',
  tampered_body: 'delivery with a tampered body',
  duplicate: 'duplicate delivery',
  out_of_order: 'delivery out of order',
  lost_response: 'lost answer to a create (503 after it is done)',
  rate_limited: '429 with Retry-After on a read',
  quote_ended: 'quote ended early',
};

/**
 * The run's probes: what each is, whether it happened, and where to see it.
 * @param {{ probes: ReadinessProbe[] }} props
 */
function Probes({ probes }) {
  return html`<${Section} title="Probes" id="readiness-probes">
    <table class="list cards" data-testid="probes">
      <thead><tr><th>Probe</th><th>Status</th><th>Seen in</th></tr></thead>
      <tbody>${probes.map(
        (p) => html`<tr data-probe=${p.kind}>
        <td class="key">${PROBE_TEXT[p.kind]}</td>
        <td data-label="Status"><span class=${`status pr-${p.status}`}>${p.status}</span></td>
        <td data-label="Seen in" class="small">${p.request_id ? html`<a class="mono" href=${link('requests', p.request_id)}>${p.request_id}</a> ` : null}${p.delivery_id ? html`<a class="mono" href=${link('deliveries', p.delivery_id)}>${p.delivery_id}</a> ` : null}${p.note ? html`<span class="muted">${p.note}</span>` : null}</td></tr>`,
      )}</tbody>
    </table>
  </${Section}>`;
}

/**
 * A partner's latest run, on its page: the verdict and the way to the readiness screen.
 * @param {{ clientId: string, name: string }} props
 */
export function ReadinessSummary({ clientId, name }) {
  /** @type {Resource<ReadinessReport[]>} */
  const runs = useResource(`/sandbox/readiness/runs${qs({ client_id: clientId })}`, ['reconnect']);
  const last = runs.data?.[0];
  return html`<${Section} title="Readiness" id="partner-readiness">
    <p class="small" data-testid="readiness-summary">${
      last
        ? html`Latest run <a class="mono" href=${hashOf('readiness', clientId, { run: last.id })}>${last.id}</a>: <${Verdict} verdict=${last.verdict} />${last.finished_at ? null : html` <span class="pill open-pill">open</span>`}`
        : html`<span class="muted">No readiness run yet.</span>`
    }</p>
    <p><a href=${link('readiness', clientId)} data-testid="readiness-link">Readiness runs of ${name} →</a></p>
  </${Section}>`;
}
