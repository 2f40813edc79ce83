import { ORDER_TYPES, type OrderType } from './model';
import { createOrderMachine, DEFAULT_TIMINGS, type LifecycleTimings } from './order.machine';

/** Human words for the machine's guards, events and delays (the machine itself stays the source). */
const GUARDS: Record<string, string> = {
  notHeld: 'not held (magic amount 4444 holds)',
  wouldOverpay: 'pays more than due',
  wouldCoverDue: 'confirmed, covers what is due',
  isConfirmed: 'confirmed, still short',
  hasPaid: 'something was paid',
  nothingPaid: 'nothing paid or seen',
  outcomeIs: 'payout outcome is',
  eventOutcomeIs: 'decided outcome is',
  underSettled: 'settled < 100%',
  hasRefund: 'a refund is due',
  underSettledWithRefund: 'settled < 100%, a refund is due',
  hasAutoPayin: 'a magic amount',
};
const EVENTS: Record<string, string> = {
  PAYIN: 'pay-in',
  CONFIRM: 'fulfil (confirm)',
  CANCEL: 'cancel',
  EXPIRE: 'expire (control)',
  SET_PAYOUT: 'payout outcome (control)',
  REFUND_DONE: 'refund done',
  AUTO_PAYIN: 'magic pay-in (1 min in)',
};

interface Row {
  from: string;
  on: string;
  guard: string;
  to: string;
  emits: string[];
}

function fmtDuration(ms: number): string {
  if (ms === 0) return '0';
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

function describeGuard(guard: unknown): string {
  if (!guard) return '';
  if (typeof guard === 'string') return GUARDS[guard] ?? guard;
  const g = guard as { type: string; params?: { outcome?: string } };
  const base = GUARDS[g.type] ?? g.type;
  return g.params?.outcome ? `${base} ${g.params.outcome}` : base;
}

function notifications(actions: readonly unknown[] | undefined): string[] {
  return (actions ?? [])
    .filter(
      (a): a is { type: string; params: { event: string } } =>
        typeof a === 'object' && a !== null && (a as { type?: string }).type === 'notify',
    )
    .map((a) => a.params.event);
}

/** Reads the machine of one order type into transition rows. */
export function transitionRows(type: OrderType, timings: LifecycleTimings = DEFAULT_TIMINGS): Row[] {
  const machine = createOrderMachine(type, timings);
  const rows: Row[] = [];
  for (const [status, node] of Object.entries(machine.root.states)) {
    const eventless: Array<[string, readonly (typeof node.always & object)[number][]]> = node.always ? [['', node.always]] : [];
    for (const [event, transitions] of [...eventless, ...node.transitions]) {
      for (const t of transitions) {
        const target = t.target?.[0]?.key;
        // A delayed transition (`after`) names its delay: xstate's own definition, not its event id.
        const delayed = 'delay' in t ? String(t.delay) : undefined;
        const on = delayed
          ? `after ${delayed} (${fmtDuration((timings as unknown as Record<string, number>)[delayed]!)})`
          : event === ''
            ? 'at once'
            : (EVENTS[event] ?? event);
        const entry = target ? notifications(machine.root.states[target]?.entry as unknown[]) : [];
        rows.push({
          from: status,
          on,
          guard: describeGuard(t.guard),
          to: target ?? '(stays)',
          emits: [...notifications(t.actions as unknown[]), ...(target && target !== status ? entry : [])],
        });
      }
    }
  }
  return rows;
}

/** docs/lifecycle.md, generated from the machines: `npm run docs:lifecycle` rewrites it. */
export function renderLifecycleDoc(): string {
  const out: string[] = [
    '# Order lifecycle',
    '',
    '<!-- Generated from src/orders/order.machine.ts by `npm run docs:lifecycle`; a test fails when it is stale. -->',
    '',
    'One XState machine per order type (`createOrderMachine(type)`) is the single source of the',
    'statuses, transitions, delays and webhook events below. Delays run on the virtual clock',
    '(defaults shown; the pay-in window is `--payin-window`). Statuses with no outgoing row are final.',
    '',
    '| delay | default |',
    '|---|---|',
    ...Object.entries(DEFAULT_TIMINGS).map(([k, v]) => `| ${k} | ${fmtDuration(v)} |`),
    '',
  ];
  for (const type of ORDER_TYPES) {
    const rows = transitionRows(type);
    out.push(`## ${type}`, '', '```mermaid', 'stateDiagram-v2', '  [*] --> initiated');
    const seen = new Set<string>();
    for (const r of rows) {
      if (r.to === '(stays)') continue;
      const label = [r.on.replace(/ \(.*\)$/, ''), r.guard && `[${r.guard}]`, r.emits.length ? `/ ${r.emits.join(', ')}` : '']
        .filter(Boolean)
        .join(' ')
        .replace(/:/g, '');
      const line = `  ${r.from} --> ${r.to} : ${label}`;
      if (!seen.has(line)) out.push(line);
      seen.add(line);
    }
    out.push('```', '', '| from | on | when | to | webhook events |', '|---|---|---|---|---|');
    for (const r of rows) {
      out.push(`| ${r.from} | ${r.on} | ${r.guard || '-'} | ${r.to} | ${r.emits.join(', ') || '-'} |`);
    }
    out.push('');
  }
  return `${out.join('\n')}`;
}
