// The lifecycle diagram of an order type, drawn from the graph the sandbox reads off its state
// machine (GET /sandbox/orders/{reference}/lifecycle): boxes in layers, top to bottom, with the
// current status and the path the order took marked. No status list lives in the page.
import { html } from './ui.js';
/** @import { LifecycleGraph, OrderStatus } from './types' */

const W = 156;
const H = 28;
const GAP_X = 14;
const GAP_Y = 30;
const PAD = 10;

/**
 * Layers by longest path from the initial status (the lifecycle has no cycles), then x order by predecessors.
 * @param {LifecycleGraph} graph
 * @returns {{ pos: Map<OrderStatus, { x: number, y: number }>, width: number, height: number }}
 */
export function layout(graph) {
  /** @type {Map<OrderStatus, number>} */
  const layer = new Map(graph.states.map((s) => [s.id, 0]));
  for (let i = 0; i < graph.states.length; i++) {
    for (const e of graph.edges) layer.set(e.to, Math.max(layer.get(e.to) ?? 0, (layer.get(e.from) ?? 0) + 1));
  }
  /** @type {OrderStatus[][]} */
  const rows = [];
  for (const s of graph.states) (rows[layer.get(s.id) ?? 0] ??= []).push(s.id);
  /** @type {Map<OrderStatus, number>} */
  const x = new Map();
  rows.forEach((row, depth) => {
    if (depth > 0) {
      /** @param {OrderStatus} id */
      const centre = (id) => {
        const preds = graph.edges.filter((e) => e.to === id && x.has(e.from)).map((e) => x.get(e.from) ?? 0);
        return preds.length ? preds.reduce((a, b) => a + b, 0) / preds.length : 0;
      };
      row.sort((a, b) => centre(a) - centre(b));
    }
    for (const [i, id] of row.entries()) x.set(id, i - (row.length - 1) / 2);
  });
  const widest = Math.max(...rows.map((r) => r.length));
  const width = widest * (W + GAP_X) - GAP_X + PAD * 2;
  const height = rows.length * (H + GAP_Y) - GAP_Y + PAD * 2;
  /** @type {Map<OrderStatus, { x: number, y: number }>} */
  const pos = new Map();
  for (const [id, col] of x) {
    pos.set(id, { x: width / 2 + col * (W + GAP_X) - W / 2, y: PAD + (layer.get(id) ?? 0) * (H + GAP_Y) });
  }
  return { pos, width, height };
}

/**
 * An order's diagram: `path` and `status` mark where it went and where it is. A run's coverage
 * (the readiness screen, CONTRACT §21): `reached` instead, the statuses its orders of the type
 * entered, highlighted, and the rest dimmed; no arrow is marked taken (only statuses are known).
 * @param {{ graph: LifecycleGraph, path?: OrderStatus[], status?: OrderStatus, reached?: string[] }} props
 */
export function Diagram({ graph, path = [], status, reached }) {
  const { pos, width, height } = layout(graph);
  const coverage = reached ? new Set(reached) : undefined;
  const visited = new Set(path);
  const taken = new Set(path.slice(1).map((to, i) => `${path[i]}>${to}`));
  // Two diagrams on one page (the readiness screen draws one per order type) need their own marker ids.
  const mark = `${coverage ? 'cov-' : ''}${graph.type}`;
  const label = coverage
    ? `Coverage of ${graph.type} orders: ${graph.states.filter((s) => coverage.has(s.id)).length} of ${graph.states.length} statuses reached`
    : `Lifecycle of a ${graph.type} order, now ${status}`;
  /**
   * One arrow per pair of statuses (`from>to`), with the label of every edge it stands for.
   * @type {Map<string, { key: string, from: OrderStatus, to: OrderStatus, labels: string[] }>}
   */
  const edges = new Map();
  for (const e of graph.edges) {
    const key = `${e.from}>${e.to}`;
    const label = `${e.from} → ${e.to}: ${e.on}${e.when ? ` [${e.when}]` : ''}${e.emits.length ? ` / ${e.emits.join(', ')}` : ''}`;
    const known = edges.get(key);
    if (known) {
      known.labels.push(label);
      continue;
    }
    edges.set(key, { key, from: e.from, to: e.to, labels: [label] });
  }
  return html`<svg class=${`diagram${coverage ? ' coverage' : ''}`} data-testid=${coverage ? 'coverage-diagram' : 'diagram'} data-type=${graph.type} viewBox=${`0 0 ${width} ${height}`} width=${width} height=${height} role="img" aria-label=${label}>
    <defs>
      <marker id=${`arrow-${mark}`} viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead" /></marker>
      <marker id=${`arrow-taken-${mark}`} viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead taken" /></marker>
    </defs>
    ${[...edges.values()].map((e) => {
      const a = pos.get(e.from);
      const b = pos.get(e.to);
      if (!a || !b) return null;
      const x1 = a.x + W / 2;
      const y1 = a.y + H;
      const x2 = b.x + W / 2;
      const y2 = b.y;
      const span = y2 - y1;
      // Long edges bow out to the side so they pass beside the boxes in between.
      const bow = span > H + GAP_Y ? (x2 >= x1 ? 1 : -1) * (W / 2 + GAP_X) : 0;
      const d = `M${x1},${y1} C${x1 + bow},${y1 + span * 0.5} ${x2 + bow},${y2 - span * 0.5} ${x2},${y2}`;
      const isTaken = taken.has(e.key);
      const isNext = status !== undefined && e.from === status && !isTaken;
      const isDim = coverage !== undefined && !(coverage.has(e.from) && coverage.has(e.to));
      return html`<path d=${d} class=${`edge${isTaken ? ' taken' : ''}${isNext ? ' next' : ''}${isDim ? ' dim' : ''}`} marker-end=${isTaken ? `url(#arrow-taken-${mark})` : `url(#arrow-${mark})`}><title>${e.labels.join('\n')}</title></path>`;
    })}
    ${graph.states.map((s) => {
      const p = pos.get(s.id);
      if (!p) return null;
      const cover = coverage ? (coverage.has(s.id) ? ' reached' : ' dim') : '';
      const cls = `node${visited.has(s.id) ? ' visited' : ''}${s.id === status ? ' current' : ''}${s.final ? ' final' : ''}${cover}`;
      const said = coverage ? (coverage.has(s.id) ? ', reached' : ', not reached') : '';
      return html`<g class=${cls} data-status=${s.id}>
        <rect x=${p.x} y=${p.y} width=${W} height=${H} rx=${s.final ? 14 : 5} />
        <text x=${p.x + W / 2} y=${p.y + H / 2 + 4} text-anchor="middle">${s.id}</text>
        <title>${s.id}${s.final ? ' (final)' : ''}${said}</title>
      </g>`;
    })}
  </svg>`;
}

/**
 * What moves the order on from `status`, in words, from the same graph.
 * @param {{ graph: LifecycleGraph, status: OrderStatus }} props
 */
export function NextSteps({ graph, status }) {
  const out = graph.edges.filter((e) => e.from === status);
  if (out.length === 0) return html`<p class="muted small">${status} is final.</p>`;
  return html`<ul class="next-steps">${out.map(
    (e) =>
      html`<li><strong>${e.to}</strong> <span class="muted">on</span> ${e.on}${e.when ? html` <span class="muted">when</span> ${e.when}` : null}${e.emits.length ? html` <span class="muted">sends</span> <span class="mono small">${e.emits.join(', ')}</span>` : null}</li>`,
  )}</ul>`;
}
