/**
 * Runs the reference integration (or a variant) against a running sandbox, inside a readiness
 * run, and prints the report: one line per check.
 *
 *   npm start                                   # in another terminal (or any sandbox URL)
 *   npx tsx examples/integrations/run.ts        # the reference: verdict ready
 *   npx tsx examples/integrations/run.ts --variant accept-stale
 *   npx tsx examples/integrations/run.ts --list # the variants and the checks each must fail
 *
 * Flags: --sandbox URL (default http://127.0.0.1:4010, or RAMP_SANDBOX_URL), --admin-token T
 * (SANDBOX_ADMIN_TOKEN), --variant ID, --verbose. Exit code 0 when the verdict is `ready`.
 * The session moves the sandbox's virtual clock (`POST /sandbox/clock/advance`): in realtime
 * mode too, which only adds to where the clock stands.
 */
import { parseArgs } from 'node:util';
import { VARIANTS } from './mistakes';
import { runSession } from './session';

const { values } = parseArgs({
  options: {
    sandbox: { type: 'string' },
    'admin-token': { type: 'string' },
    variant: { type: 'string' },
    list: { type: 'boolean' },
    verbose: { type: 'boolean' },
  },
});

if (values.list) {
  for (const v of VARIANTS) console.log(`${v.id.padEnd(24)} ${v.description} -> fails ${v.fails.join(', ')} (${v.clause})`);
  process.exit(0);
}

const sandboxUrl = (values.sandbox ?? process.env.RAMP_SANDBOX_URL ?? 'http://127.0.0.1:4010').replace(/\/$/, '');
const result = await runSession({
  sandboxUrl,
  adminToken: values['admin-token'] ?? process.env.SANDBOX_ADMIN_TOKEN,
  variant: values.variant,
  log: values.verbose ? (line) => console.error(line) : undefined,
});
const { report } = result;
console.log(`readiness run ${report.id} for ${report.client_id}: ${report.verdict}`);
for (const c of report.checks) {
  const mark = c.status === 'pass' ? 'pass' : c.status === 'fail' ? 'FAIL' : '  - ';
  console.log(`${mark}  ${c.id.padEnd(18)} ${c.clause.padEnd(22)} ${c.status === 'fail' ? c.fix : c.title}`);
}
for (const e of result.errors) console.log(`note: ${e}`);
process.exit(report.verdict === 'ready' ? 0 : 1);
