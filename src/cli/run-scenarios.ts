import { parseArgs } from 'node:util';
import { runAll } from '../scenario-runner';
import { startScenarioSandbox } from '../scenario-sandbox';

const USAGE = `Usage: npm run scenarios -- [FILE...] [options]

Runs scenario files (default: every file in scenarios/) and exits non-zero when any fails.

  --sandbox URL       drive a running sandbox (e.g. npm start -- --clock manual) instead of in-process ones
  --admin-token T     admin token of that sandbox's control API
  --target URL        send the scenarios' webhooks to your receiver (default: a built-in receiver)
  --partner FILE      JSON {client_id, keys: {test, live}}: act as this partner, so your receiver
                      verifies with keys it already holds
  --junit FILE        write a JUnit XML report
  --seed N            seed for faker helpers and in-process sandboxes (default 1)
  --concurrency N     scenarios at once in process (default 4; 1 with --sandbox or --partner)
`;

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        sandbox: { type: 'string' },
        'admin-token': { type: 'string' },
        target: { type: 'string' },
        partner: { type: 'string' },
        junit: { type: 'string' },
        seed: { type: 'string' },
        concurrency: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const result = await runAll({
    files: positionals,
    sandboxUrl: values.sandbox,
    startSandbox: startScenarioSandbox,
    adminToken: values['admin-token'] ?? process.env.SANDBOX_ADMIN_TOKEN,
    targetUrl: values.target,
    partnerFile: values.partner,
    junitFile: values.junit,
    seed: values.seed ? Number(values.seed) : undefined,
    concurrency: values.concurrency ? Number(values.concurrency) : undefined,
    live: process.stdout.isTTY === true && process.env.CI !== 'true',
  });
  process.exitCode = result.fileErrors.length > 0 ? 2 : result.ok ? 0 : 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
