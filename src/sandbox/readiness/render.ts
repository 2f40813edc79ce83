// A readiness report as people and CI read it (CONTRACT §21): a table for a terminal, a JUnit
// XML file (one testcase per check) and a Markdown page. Pure: the CLI and the scenario runner
// write what these return.
import type { ReadinessReport } from './readiness.schemas';

type Paint = (text: string) => string;
const plain: Paint = (t) => t;

export interface TablePaint {
  green: Paint;
  yellow: Paint;
  red: Paint;
  bold: Paint;
  dim: Paint;
}

const MARK = { pass: '✓', fail: '✗', not_exercised: '–' } as const;

/** One line per check, `✓ id  clause  title`, and `fix: …` under each that did not pass. */
export function reportTable(
  report: ReadinessReport,
  paint: TablePaint = { green: plain, yellow: plain, red: plain, bold: plain, dim: plain },
): string {
  const colour = { pass: paint.green, fail: paint.red, not_exercised: paint.yellow } as const;
  const idWidth = Math.max(...report.checks.map((c) => c.id.length));
  const clauseWidth = Math.max(...report.checks.map((c) => c.clause.length));
  const lines = [
    `${paint.bold(`Readiness ${report.id}`)} ${report.client_id} (${report.environment}${report.scope === 'receiver' ? ', receiver only' : ''}): ${verdictPaint(report.verdict, paint)}`,
  ];
  for (const c of report.checks) {
    const status =
      c.status === 'not_exercised' && !c.applies
        ? paint.dim(`${MARK.not_exercised} ${c.id.padEnd(idWidth)}`)
        : colour[c.status](`${MARK[c.status]} ${c.id.padEnd(idWidth)}`);
    lines.push(
      `${status}  ${c.clause.padEnd(clauseWidth)}  ${c.title}${c.status === 'not_exercised' ? paint.dim(c.applies ? ' (not exercised)' : ' (not used)') : ''}`,
    );
    if (c.status === 'fail' || (c.status === 'not_exercised' && c.applies)) {
      const first = c.evidence[0];
      if (first) lines.push(`    ${paint.dim(evidenceLine(first))}`);
      lines.push(`    fix: ${c.fix}`);
    }
  }
  const coverage = report.coverage.order_types.map((t) => {
    const s = report.coverage.statuses[t]!;
    const e = report.coverage.events[t]!;
    return `${t}: ${s.reached.length}/${s.reachable.length} statuses, ${e.acknowledged.length}/${e.reachable.length} events`;
  });
  if (coverage.length > 0) lines.push(paint.dim(`coverage: ${coverage.join('; ')}`));
  return `${lines.join('\n')}\n`;
}

function verdictPaint(verdict: ReadinessReport['verdict'], paint: TablePaint): string {
  return verdict === 'ready' ? paint.green('ready') : verdict === 'not_ready' ? paint.red('not_ready') : paint.yellow('incomplete');
}

function evidenceLine(e: ReadinessReport['checks'][number]['evidence'][number]): string {
  const where = [e.request_id, e.delivery_id, e.order].filter(Boolean).join(' ');
  return where ? `${where}: ${e.note}` : e.note;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit XML: one testcase per check; a fail is a failure, a not_exercised check that applies is skipped. */
export function reportJunit(report: ReadinessReport): string {
  const failures = report.checks.filter((c) => c.status === 'fail').length;
  const skipped = report.checks.filter((c) => c.status === 'not_exercised').length;
  const cases = report.checks.map((c) => {
    const open = `    <testcase classname="readiness.${c.side}" name="${esc(`${c.id} (${c.clause})`)}" time="0"`;
    const details = esc([c.title, ...c.evidence.map(evidenceLine), `fix: ${c.fix}`].join('\n'));
    if (c.status === 'pass') return `${open}/>`;
    if (c.status === 'fail')
      return `${open}>\n      <failure message="${esc(`${c.id}: ${c.fix}`)}" type="ReadinessCheck">${details}</failure>\n    </testcase>`;
    return `${open}>\n      <skipped message="${esc(c.applies ? 'not exercised' : 'not used by the integration')}"/>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${report.checks.length}" failures="${failures}" skipped="${skipped}">`,
    `  <testsuite name="${esc(`ramp-sandbox readiness ${report.id} ${report.client_id}: ${report.verdict}`)}" tests="${report.checks.length}" failures="${failures}" errors="0" skipped="${skipped}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

const md = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A Markdown page: the verdict, a table of the checks with their fixes, the coverage. */
export function reportMarkdown(report: ReadinessReport): string {
  const lines = [
    `# Readiness ${report.id}: ${report.verdict}`,
    '',
    `Partner \`${report.client_id}\`, ${report.environment} environment${report.scope === 'receiver' ? ' (receiver only)' : ''}, opened ${report.opened_at}${report.finished_at ? `, finished ${report.finished_at}` : ' (still open)'}.`,
    '',
    '| check | clause | status | evidence | fix |',
    '|---|---|---|---|---|',
    ...report.checks.map(
      (c) =>
        `| \`${c.id}\` | ${md(c.clause)} | ${c.status === 'not_exercised' && !c.applies ? 'not used' : c.status} | ${md(c.evidence.slice(0, 3).map(evidenceLine).join('; '))} | ${c.status === 'pass' ? '' : md(c.fix)} |`,
    ),
    '',
    '## Coverage',
    '',
  ];
  if (report.coverage.order_types.length === 0) lines.push('No order was created in the run.');
  for (const t of report.coverage.order_types) {
    const s = report.coverage.statuses[t]!;
    const e = report.coverage.events[t]!;
    lines.push(
      `- **${t}**: statuses ${s.reached.length}/${s.reachable.length} (missing: ${s.reachable.filter((x) => !s.reached.includes(x)).join(', ') || 'none'}); events acknowledged ${e.acknowledged.length}/${e.reachable.length} (missing: ${e.reachable.filter((x) => !e.acknowledged.includes(x)).join(', ') || 'none'})`,
    );
  }
  lines.push(`- error codes seen: ${report.coverage.error_codes.seen.join(', ') || 'none'}`, '');
  return lines.join('\n');
}

/** Whether a verdict fails CI under `--fail-on` (`not_ready`: only not_ready; `incomplete`: not_ready or incomplete). */
export function failsOn(verdict: ReadinessReport['verdict'], failOn: 'not_ready' | 'incomplete'): boolean {
  return verdict === 'not_ready' || (failOn === 'incomplete' && verdict === 'incomplete');
}
