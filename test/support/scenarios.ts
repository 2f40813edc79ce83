import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScenario, runAll, ScenarioFileError } from '../../src/scenario-runner';
import { startScenarioSandbox } from '../../src/cli/scenario-sandbox';

/** The load-time error a scenario text gets (throws when it is accepted). */
export function rejection(yaml: string): ScenarioFileError {
  try {
    parseScenario(yaml, 'bad.yaml');
  } catch (error) {
    if (error instanceof ScenarioFileError) return error;
    throw error;
  }
  throw new Error('accepted');
}

/** Runs one scenario text in process; its report and result. */
export async function runYaml(yaml: string) {
  const dir = mkdtempSync(join(tmpdir(), 'scn-'));
  const file = join(dir, 'x.yaml');
  writeFileSync(file, yaml);
  let out = '';
  const run = await runAll({ startSandbox: startScenarioSandbox, files: [file], write: (t) => (out += t) });
  return { run, out, result: run.results[0]! };
}
