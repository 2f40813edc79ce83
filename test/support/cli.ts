import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { spawnTs } from './spawn';

/** The `ramp-sandbox` bin from the sources. */
export const BIN = new URL('../../src/cli/bin.ts', import.meta.url).pathname;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `ramp-sandbox ARGS…` to its end as a user would (a child process, stdin closed) and
 * gives its exit code and output. `env` adds to (or, with undefined, removes from) this
 * process's environment.
 */
export async function runCli(
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; cwd?: string } = {},
): Promise<CliResult> {
  const child = startCli(args, options);
  return child.done;
}

export interface RunningCli {
  child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout holds `count` complete lines (or rejects with the output if the process ends first). */
  lines(count: number): Promise<string[]>;
  /** Resolves once stderr matches `pattern` (or rejects if the process ends first). */
  stderrMatching(pattern: RegExp): Promise<string>;
  /** Resolves when the process has ended and its output is read. */
  done: Promise<CliResult>;
}

/** Starts `ramp-sandbox ARGS…` and follows its output; the caller stops it (see `stopCli`). */
export function startCli(args: readonly string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}): RunningCli {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...options.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const child = spawnTs(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'], env, cwd: options.cwd });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    wake();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    wake();
  });
  let ended = false;
  const done = (async (): Promise<CliResult> => {
    const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    ended = true;
    wake();
    return { code, signal, stdout, stderr };
  })();
  /** Resolves with `check()`'s value once it has one; rejects when the process ends without it. */
  const until = <T>(check: () => T | undefined, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const test = () => {
        const value = check();
        if (value !== undefined) {
          waiters.delete(test);
          resolve(value);
        } else if (ended) {
          waiters.delete(test);
          reject(new Error(`the command ended before ${what}\nstdout: ${stdout}\nstderr: ${stderr}`));
        }
      };
      waiters.add(test);
      test();
    });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    lines: (count) =>
      until(() => {
        const lines = stdout.split('\n');
        return lines.length > count ? lines.slice(0, count) : undefined;
      }, `${count} lines of stdout`),
    stderrMatching: (pattern) => until(() => (pattern.test(stderr) ? stderr : undefined), `stderr matched ${pattern}`),
    done,
  };
}

/** Stops a command by its PID with `signal` unless it has ended, and waits for its end. */
export async function stopCli(cli: RunningCli, signal: NodeJS.Signals = 'SIGINT'): Promise<CliResult> {
  if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill(signal);
  return cli.done;
}
