import type { ScenarioResult } from './runner';

const esc = (s: string) =>
  s
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** The failure block: the step, what was expected, what was seen, and the orders so far. */
export function describeFailure(r: ScenarioResult): string {
  const f = r.failure;
  if (!f) return '';
  const lines = [`✗ ${r.name} (${r.file})`, `  step ${f.index} (${f.label}): ${f.error}`];
  if (f.expected !== undefined) lines.push(`  expected: ${JSON.stringify(f.expected)}`);
  if (f.seen !== undefined) lines.push(`  seen:     ${JSON.stringify(f.seen)}`);
  if (r.context) lines.push(r.context);
  return lines.join('\n');
}

/** The summary table printed at the end of a run. */
export function summaryTable(results: ScenarioResult[]): string {
  const rows = results.map((r) => [
    r.name,
    r.ok ? 'pass' : 'FAIL',
    r.ok ? `${r.steps.length}` : `${r.failure!.index}/${r.steps.length} failed at ${r.failure!.label}`,
    `${r.ms} ms`,
  ]);
  const head = ['scenario', 'result', 'steps', 'time'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  const passed = results.filter((r) => r.ok).length;
  return [
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    `${passed} passed, ${results.length - passed} failed`,
  ].join('\n');
}

/** A JUnit XML report: one testsuite, one testcase per scenario. */
export function junitXml(results: ScenarioResult[], totalMs: number): string {
  const failures = results.filter((r) => !r.ok).length;
  const cases = results.map((r) => {
    const open = `    <testcase classname="scenarios" name="${esc(r.name)}" file="${esc(r.file)}" time="${(r.ms / 1000).toFixed(3)}"`;
    if (r.ok) return `${open}/>`;
    const f = r.failure!;
    return `${open}>\n      <failure message="${esc(`step ${f.index} (${f.label}): ${f.error ?? ''}`)}" type="StepFailure">${esc(describeFailure(r))}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${results.length}" failures="${failures}" time="${(totalMs / 1000).toFixed(3)}">`,
    `  <testsuite name="ramp-sandbox scenarios" tests="${results.length}" failures="${failures}" errors="0" skipped="0" time="${(totalMs / 1000).toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
