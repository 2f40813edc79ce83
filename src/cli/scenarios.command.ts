import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SCENARIO_DIR, runAll } from '../scenario-runner';
import { startScenarioSandbox } from './scenario-sandbox';
import { redrawsLines } from './output';
import { redactedUrl, sandboxUrlProblem } from './remote';

const USAGE = `Usage: ramp-sandbox scenarios [FILE|NAME...] [options]
       (from a clone: npm run scenarios -- [FILE|NAME...] [options])

Runs scenario files (default: every file of the shipped library) and exits non-zero when any
fails. A NAME that is not a file, such as cancel or cancel.yaml, picks that library scenario.

  --sandbox URL       drive a running sandbox (e.g. npm start -- --clock manual) instead of in-process ones
  --admin-token T     admin token of that sandbox's control API
  --target URL        send the scenarios' webhooks to your receiver (default: a built-in receiver)
  --partner FILE      JSON {client_id, keys: {test, live}} (or the control API's answer around it,
                      {status, message, data}): act as this partner, so your receiver verifies
                      with keys it already holds
  --junit FILE        write a JUnit XML report (its folder must exist and be writable)
  --readiness FILE    with --partner: a readiness run of the partner's receiver around the run,
                      its report written to FILE as JSON (exit 1 when its verdict is not_ready)
  --seed N            seed for faker helpers and in-process sandboxes (default 1)
  --concurrency N     scenarios at once in process (1 to 64; default 4; 1 with --sandbox or --partner)
`;

/** The most scenarios run at once in process: each starts a sandbox of its own. */
const MAX_CONCURRENCY = 64;

/** `ramp-sandbox scenarios` (`npm run scenarios`): exit 0 all passed, 1 one failed, 2 bad input. */
export async function main(argv: string[]): Promise<void> {
  try {
    await scenarios(argv);
  } catch (error) {
    // A system error (a report that could not be written after all: disk full…) is the user's to
    // fix, said in one line; anything else is a bug, with its stack.
    const system = typeof (error as NodeJS.ErrnoException).code === 'string' && (error as NodeJS.ErrnoException).syscall !== undefined;
    process.stderr.write(`${system ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`);
    process.exitCode = 1;
  }
}

/** A path as given when it exists, else the shipped library's file of that name. */
export function resolveScenarioFile(arg: string, library = DEFAULT_SCENARIO_DIR): string {
  if (existsSync(arg)) return arg;
  for (const name of [arg, `${arg}.yaml`, `${arg}.yml`]) {
    if (!name.includes('/') && existsSync(join(library, name))) return join(library, name);
  }
  return arg;
}

/**
 * Why the JUnit report could not be written at `file`, or undefined when it can: checked before
 * anything runs, so a run is not lost to a folder the user (uid 1000 in the image) cannot write
 * (docs/container.md). The folder must exist and be writable; the file, if there, writable.
 */
export function junitPathProblem(file: string): string | undefined {
  const dir = dirname(resolve(file));
  const code = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);
  try {
    if (!statSync(dir).isDirectory()) return `${dir} is not a folder`;
  } catch (error) {
    return code(error) === 'ENOENT' ? `folder ${dir} does not exist` : `folder ${dir}: ${code(error)}`;
  }
  let target: ReturnType<typeof statSync> | undefined;
  try {
    target = statSync(file);
  } catch {
    target = undefined;
  }
  if (target?.isDirectory()) return 'it is a folder';
  try {
    accessSync(target ? file : dir, constants.W_OK);
  } catch {
    return target ? 'the file is not writable (EACCES)' : `folder ${dir} is not writable by this user (EACCES)`;
  }
  return undefined;
}

const OPTIONS = {
  sandbox: { type: 'string' },
  'admin-token': { type: 'string' },
  target: { type: 'string' },
  partner: { type: 'string' },
  junit: { type: 'string' },
  readiness: { type: 'string' },
  seed: { type: 'string' },
  concurrency: { type: 'string' },
  help: { type: 'boolean' },
} as const;

async function scenarios(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>>;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && (values.seed!.trim() === '' || !Number.isInteger(seed))) {
    process.stderr.write(`--seed: ${values.seed} is not valid (a whole number)\n`);
    process.exitCode = 2;
    return;
  }
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= MAX_CONCURRENCY)) {
    process.stderr.write(`--concurrency: ${values.concurrency} is not valid (a whole number from 1 to ${MAX_CONCURRENCY})\n`);
    process.exitCode = 2;
    return;
  }
  const urlProblem = values.sandbox === undefined ? undefined : sandboxUrlProblem(values.sandbox);
  if (urlProblem) {
    process.stderr.write(`--sandbox ${redactedUrl(values.sandbox!)} ${urlProblem}\n`);
    process.exitCode = 2;
    return;
  }
  const junitProblem = values.junit === undefined ? undefined : junitPathProblem(values.junit);
  if (junitProblem) {
    process.stderr.write(`--junit ${values.junit}: cannot write the report there: ${junitProblem}\n`);
    process.exitCode = 2;
    return;
  }
  if (values.readiness !== undefined && values.partner === undefined) {
    process.stderr.write(`--readiness ${values.readiness}: a readiness run is one partner's: give --partner FILE too\n`);
    process.exitCode = 2;
    return;
  }
  const readinessProblem = values.readiness === undefined ? undefined : junitPathProblem(values.readiness);
  if (readinessProblem) {
    process.stderr.write(`--readiness ${values.readiness}: cannot write the report there: ${readinessProblem}\n`);
    process.exitCode = 2;
    return;
  }
  let result: Awaited<ReturnType<typeof runAll>>;
  try {
    result = await runAll({
      files: positionals.map((file) => resolveScenarioFile(file)),
      sandboxUrl: values.sandbox,
      startSandbox: startScenarioSandbox,
      adminToken: values['admin-token'] ?? process.env.SANDBOX_ADMIN_TOKEN,
      targetUrl: values.target,
      partnerFile: values.partner,
      junitFile: values.junit,
      readinessFile: values.readiness,
      seed,
      concurrency,
      live: redrawsLines(),
    });
  } catch (error) {
    // A report that could not be written (a full disk), or a run that could not start: one line.
    process.stderr.write(`ramp-sandbox scenarios: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  process.exitCode = result.fileErrors.length > 0 ? 2 : result.ok && result.readiness?.verdict !== 'not_ready' ? 0 : 1;
}
