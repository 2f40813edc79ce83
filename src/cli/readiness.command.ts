import { writeReport } from '../shared/report-file';
import { failsOn, reportJunit, reportMarkdown, reportTable } from '../sandbox/readiness/render';
import type { ReadinessReport } from '../sandbox/readiness/readiness.schemas';
import { onStdoutClosed, palette, useColour } from './output';
import { REMOTE_USAGE, runRemote, UsageError } from './remote';
import { junitPathProblem } from './scenarios.command';

const USAGE = `Usage: ramp-sandbox readiness --client-id ID [--run ID] [options]
       ramp-sandbox readiness --client-id ID --open [--no-probes] [--environment live]

Is a partner's integration ready to go live (CONTRACT §21)? With --open, opens a readiness run
for the partner and prints its id: from then on its /v1 traffic and its receiver's answers count,
and the sandbox probes what ordinary traffic rarely shows. Without --open, finishes the run
(--run, else the partner's newest) and prints its report: one line per check with its clause,
and the fix of each that did not pass. Exit 1 on the verdicts --fail-on names.

  --client-id ID      the partner (the demo partner's id is printed by serve)
  --run ID            the run to report (default: the partner's newest)
  --open              open a run and print its id (to finish it later)
  --no-probes         with --open: no probes (only the partner's own traffic counts)
  --environment ENV   with --open: test (default) or live
  --no-finish         report the run so far, leaving it open
  --junit FILE        write a JUnit XML report (one testcase per check)
  --markdown FILE     write a Markdown report
  --json              print the report as JSON (as GET /sandbox/readiness/runs/{id})
  --fail-on VERDICT   not_ready (default): exit 1 on not_ready; incomplete: on not_ready or incomplete
${REMOTE_USAGE}

Example (CI):
  RUN=$(ramp-sandbox readiness --client-id ptr_acme --open)
  npm test                       # your suite, against the sandbox
  ramp-sandbox readiness --client-id ptr_acme --run "$RUN" --junit readiness.xml --fail-on not_ready
`;

const OPTIONS = {
  'client-id': { type: 'string' },
  run: { type: 'string' },
  open: { type: 'boolean' },
  'no-probes': { type: 'boolean' },
  environment: { type: 'string' },
  'no-finish': { type: 'boolean' },
  junit: { type: 'string' },
  markdown: { type: 'string' },
  json: { type: 'boolean' },
  'fail-on': { type: 'string', default: 'not_ready' },
} as const;

/** `ramp-sandbox readiness` (CONTRACT §21). */
export async function main(argv: string[]): Promise<void> {
  await runRemote(
    'readiness',
    USAGE,
    OPTIONS,
    async ({ values, positionals, control }) => {
      if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
      const failOn = values['fail-on'];
      if (failOn !== 'not_ready' && failOn !== 'incomplete')
        throw new UsageError(`--fail-on must be not_ready or incomplete, not '${failOn}'`);
      const environment = values.environment;
      if (environment !== undefined && environment !== 'test' && environment !== 'live')
        throw new UsageError(`--environment must be test or live, not '${environment}'`);
      if (values.run !== undefined && values.run.trim() === '') throw new UsageError('--run needs a run id (rdy_…)');
      if (values.junit !== undefined && values.junit === values.markdown)
        throw new UsageError(`--junit and --markdown name the same file (${values.junit}): one report would overwrite the other`);
      // Report files are checked first: a run is not finished for nothing.
      for (const [flag, file] of [
        ['--junit', values.junit],
        ['--markdown', values.markdown],
      ] as const) {
        const problem = file === undefined ? undefined : junitPathProblem(file);
        if (problem) throw new UsageError(`${flag} ${file}: cannot write the report there: ${problem}`);
      }
      onStdoutClosed(() => process.exit(process.exitCode ?? 0));
      const clientId = values['client-id'];
      if (values.open) {
        if (!clientId) throw new UsageError('--open needs --client-id');
        const opened = await control.openReadinessRun({
          body: { client_id: clientId, probes: !values['no-probes'], ...(environment ? { environment } : {}) },
        });
        process.stdout.write(values.json ? `${JSON.stringify(opened)}\n` : `${opened.id}\n`);
        return;
      }
      let id = values.run;
      if (id === undefined) {
        if (!clientId) throw new UsageError('give --client-id (its newest run) or --run');
        const [newest] = await control.listReadinessRuns({ query: { client_id: clientId } });
        if (!newest)
          throw new Error(`no readiness run for ${clientId}: open one first (ramp-sandbox readiness --client-id ${clientId} --open)`);
        id = newest.id;
      }
      const report: ReadinessReport = values['no-finish'] ? await control.getReadinessRun({ params: { id } }) : await finishOrFinal(id);
      if (values.junit) await writeReport(values.junit, reportJunit(report));
      if (values.markdown) await writeReport(values.markdown, reportMarkdown(report));
      process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : reportTable(report, palette(useColour())));
      if (failsOn(report.verdict, failOn)) process.exitCode = 1;

      /** The final report: finishing a run that a reset or a newer run ended is a 409; its report is final as it is. */
      async function finishOrFinal(run: string): Promise<ReadinessReport> {
        const current = await control.getReadinessRun({ params: { id: run } });
        return current.finished_at ? current : control.finishReadinessRun({ params: { id: run } });
      }
    },
    argv,
  );
}
