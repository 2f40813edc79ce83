import { readdirSync } from 'node:fs';
import { writeReport } from '../shared/report-file';
import { join } from 'node:path';
import * as z from 'zod';
import { SandboxClient, type PartnerIdentity } from './partner/client';
import { BuiltInReceiver } from './partner/receiver';
import { describeFailure, junitXml, summaryTable } from './report';
import { runScenario, type ScenarioResult } from './runner';
import { loadScenario, readSmallFile, ScenarioFileError, type Scenario } from './script/schema';
import { firstIssue } from '../shared/validation';
import { packagePath } from '../shared/package-root';
import { reportTable } from '../sandbox/readiness/render';
import type { ReadinessReport } from '../sandbox/readiness/readiness.schemas';

/** The scenario library shipped with the sandbox (`scenarios/` at the package root). */
export const DEFAULT_SCENARIO_DIR = packagePath('scenarios');

/** A sandbox started for a run; `npm run scenarios` starts in-process ones (src/cli/scenario-sandbox.ts). */
export interface StartedSandbox {
  url: string;
  close(): Promise<void>;
}
export type SandboxStarter = (options: { seed: number }) => Promise<StartedSandbox>;

export interface RunAllOptions {
  /** Scenario files; default: every .yaml/.yml in scenarios/. */
  files?: string[];
  /** Already parsed scenarios (generated ones), instead of files. */
  scenarios?: Scenario[];
  /** Drive a running sandbox (scenarios one at a time)... */
  sandboxUrl?: string;
  /** ...or start one per worker with this (the runner never starts a sandbox itself). */
  startSandbox?: SandboxStarter;
  adminToken?: string;
  /** The partner's own receiver; default: the built-in receiver. */
  targetUrl?: string;
  /** JSON {client_id, keys: {test, live}}, or the control API's envelope around it: every scenario acts as this partner. */
  partnerFile?: string;
  junitFile?: string;
  /**
   * With `partnerFile`: open a readiness run for that partner before the scenarios (CONTRACT §21,
   * scope `receiver`: the runner's /v1 calls are not the partner's, so the client checks stay
   * not_exercised), finish it after, and write its report here as JSON.
   */
  readinessFile?: string;
  seed?: number;
  /** Scenarios at once (in process, each in its own sandbox); 1 against --sandbox or --partner. */
  concurrency?: number;
  /** Where progress and the report go. */
  write?: (text: string) => void;
  /** Redraw progress in place (a terminal). */
  live?: boolean;
}

export interface RunAllResult {
  ok: boolean;
  results: ScenarioResult[];
  /** Files that could not run: nothing ran. */
  fileErrors: ScenarioFileError[];
  ms: number;
  /** The readiness run's final report, with `readinessFile`. */
  readiness?: ReadinessReport;
}

const KeySetSchema = z.object({ public_key: z.string(), secret_key: z.string(), encryption_key: z.string() });
const PartnerFileSchema = z.object({ client_id: z.string().min(1), keys: z.object({ test: KeySetSchema, live: KeySetSchema }) });

/**
 * The --partner file's partner: the object itself, or the control API's answer saved as it came
 * (`POST /sandbox/partners` or `GET /sandbox/partners/{id}/keys` piped to a file): the envelope
 * `{status, message, data}` (CONTRACT §4), whose `data` is the partner.
 */
function partnerFromFile(json: unknown): unknown {
  if (typeof json === 'object' && json !== null && 'status' in json && 'data' in json && !('client_id' in json)) {
    return (json as { data: unknown }).data;
  }
  return json;
}

/** Lists the scenario files of a directory, sorted. */
function scenarioFiles(dir = DEFAULT_SCENARIO_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** Validates every file, then runs the scenarios: the engine behind `npm run scenarios`. */
export async function runAll(options: RunAllOptions = {}): Promise<RunAllResult> {
  const started = performance.now();
  const write = options.write ?? ((t: string) => process.stdout.write(t));
  const files = options.scenarios ? [] : options.files?.length ? options.files : scenarioFiles();
  const scenarios: Scenario[] = [...(options.scenarios ?? [])];
  const fileErrors: ScenarioFileError[] = [];
  for (const file of files) {
    try {
      scenarios.push(loadScenario(file));
    } catch (error) {
      if (error instanceof ScenarioFileError) fileErrors.push(error);
      else throw error;
    }
  }
  if (fileErrors.length > 0) {
    for (const e of fileErrors) write(`✗ ${e.message}\n`);
    write(`${fileErrors.length} scenario file(s) rejected; nothing was run.\n`);
    return { ok: false, results: [], fileErrors, ms: Math.round(performance.now() - started) };
  }
  let identity: PartnerIdentity | undefined;
  if (options.partnerFile) {
    // A file that cannot be read or is not JSON is refused like a malformed one (exit 2, one line).
    // A byte order mark before it (PowerShell's `Set-Content -Encoding UTF8` writes one) is skipped,
    // as for the state file and the fixtures.
    let json: unknown;
    let unreadable: string | undefined;
    try {
      json = JSON.parse(readSmallFile(options.partnerFile).replace(/^\uFEFF/, ''));
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      unreadable = error instanceof ScenarioFileError ? error.reason : e.code ? `cannot be read (${e.code})` : `is not JSON (${e.message})`;
    }
    const parsed = unreadable === undefined ? PartnerFileSchema.safeParse(partnerFromFile(json)) : undefined;
    if (!parsed?.success) {
      const issue = parsed ? firstIssue(parsed.error) : { path: undefined, message: unreadable! };
      const error = new ScenarioFileError(options.partnerFile, undefined, issue.path, issue.message);
      write(`✗ ${error.message}\n`);
      return { ok: false, results: [], fileErrors: [error], ms: 0 };
    }
    identity = parsed.data;
  }

  if (options.sandboxUrl === undefined && options.startSandbox === undefined) {
    throw new Error('runAll needs a sandbox: give sandboxUrl, or startSandbox to start one per worker');
  }
  const seed = options.seed ?? 1;
  const shared = options.sandboxUrl !== undefined || identity !== undefined;
  const concurrency = shared ? 1 : Math.max(1, options.concurrency ?? 4);
  const receiver = options.targetUrl ? undefined : await new BuiltInReceiver().start();
  const sandboxes: StartedSandbox[] = [];
  const clients: SandboxClient[] = [];
  if (options.sandboxUrl) {
    clients.push(new SandboxClient(options.sandboxUrl.replace(/\/$/, ''), options.adminToken));
  } else {
    for (let i = 0; i < Math.min(concurrency, scenarios.length); i++) {
      const s = await options.startSandbox!({ seed });
      sandboxes.push(s);
      clients.push(new SandboxClient(s.url));
    }
  }

  let readinessRun: string | undefined;
  if (options.readinessFile) {
    if (!identity) throw new Error("readinessFile needs partnerFile: a readiness run is one partner's");
    readinessRun = await openReadiness(clients[0]!, identity);
  }

  const results: ScenarioResult[] = new Array(scenarios.length);
  const progress = new Map<number, string>();
  const render = () => {
    if (!options.live) return;
    const lines = [...progress.entries()].sort(([a], [b]) => a - b).map(([, l]) => l);
    write(`\u001b[s${lines.map((l) => `\u001b[2K${l}`).join('\n')}\n\u001b[u`);
  };
  let next = 0;
  const worker = async (client: SandboxClient) => {
    for (let i = next++; i < scenarios.length; i = next++) {
      const scenario = scenarios[i]!;
      const key = `s${i}-${scenario.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .slice(0, 40)}`;
      progress.set(i, `… ${scenario.name}: starting`);
      render();
      const result = await runScenario(scenario, {
        client,
        receiver,
        targetUrl: options.targetUrl,
        identity,
        seed: seed + i,
        key,
        onStep: (step) => {
          progress.set(i, `… ${scenario.name}: step ${step.index}/${scenario.steps.length} ${step.label ?? step.kind}`);
          render();
        },
      });
      results[i] = result;
      progress.delete(i);
      write(
        `${options.live ? '\u001b[2K' : ''}${result.ok ? '✓' : '✗'} ${scenario.name} (${result.steps.length} steps, ${result.ms} ms)\n`,
      );
      render();
    }
  };
  let readiness: ReadinessReport | undefined;
  try {
    await Promise.all(clients.map((c) => worker(c)));
    if (readinessRun) readiness = await finishReadiness(clients[0]!, readinessRun);
  } finally {
    await receiver?.close();
    await Promise.all(sandboxes.map((s) => s.close()));
  }
  const ms = Math.round(performance.now() - started);
  for (const r of results) if (!r.ok) write(`\n${describeFailure(r)}\n`);
  write(`\n${summaryTable(results)}\n`);
  if (options.junitFile) await writeReport(options.junitFile, junitXml(results, ms));
  if (readiness && options.readinessFile) {
    await writeReport(options.readinessFile, `${JSON.stringify(readiness, null, 2)}\n`);
    write(`\n${reportTable(readiness)}`);
  }
  return { ok: results.every((r) => r.ok), results, fileErrors: [], ms, ...(readiness ? { readiness } : {}) };
}

/** Provisions the partner (its scenarios set its receiver up) and opens a receiver-only readiness run for it. */
async function openReadiness(client: SandboxClient, identity: PartnerIdentity): Promise<string> {
  const created = await client.createPartner({ client_id: identity.client_id, keys: identity.keys, name: 'readiness' });
  if (!created.ok && created.error.status !== 409)
    throw new Error(
      `could not provision partner ${identity.client_id} for the readiness run: ${created.error.status} ${created.error.message}`,
    );
  const run = await client.control.openReadinessRun({ body: { client_id: identity.client_id, scope: 'receiver' } });
  return run.id;
}

/**
 * The run's final report, once the receiver has answered the probes sent on the back of the
 * last scenario's deliveries (at most ~2 s of waiting: a probe left unanswered stays not_exercised).
 */
async function finishReadiness(client: SandboxClient, id: string): Promise<ReadinessReport> {
  for (let i = 0; i < 20; i++) {
    const sofar = await client.control.getReadinessRun({ params: { id } });
    const waiting = sofar.checks.some(
      (c) =>
        c.side === 'receiver' && c.status === 'not_exercised' && c.applies && c.evidence.some((e) => e.note.startsWith('no answer yet')),
    );
    if (!waiting) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return client.control.finishReadinessRun({ params: { id } });
}
