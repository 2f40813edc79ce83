import { spawn } from 'node:child_process';
import { availableParallelism, constants } from 'node:os';

/**
 * V8's garbage collector on a process that has one CPU to run on
 * (docs/decisions/017-one-cpu-single-threaded-gc.md).
 *
 * V8 marks the old generation and sweeps on helper threads. On a process that can run on one
 * CPU only (`taskset`, a cpuset), those threads take that CPU from the main thread. Marking a
 * large store then slows every request for as long as it runs: create p99 went from ~20 ms to
 * 480 ms at 500,000 stored orders. With `--single-threaded-gc`, V8 marks in small steps on the
 * main thread: 29 ms at 500,000 orders.
 *
 * V8 takes the flag only at start-up. Setting it later with `v8.setFlagsFromString` aborts the
 * process at the next full GC, and `NODE_OPTIONS` refuses it. So `serve` (its entry points,
 * `bin.ts` and `serve.ts`, before they load the sandbox's code), when it finds one CPU and no
 * flag, runs itself again with the flag: a child node with the same arguments, in its own
 * process group (a Ctrl-C reaches it once, from here, not twice, which would mean "stop at
 * once"). Signals are passed on, its exit code is this process's, and it stops gracefully if
 * this process dies (the IPC channel closes). `RAMP_SANDBOX_GC=v8` keeps V8's default.
 */

export const SINGLE_THREADED_GC = '--single-threaded-gc';
/** Set in the child that `rerunWithSingleThreadedGc` starts. */
const RERUN_ENV = 'RAMP_SANDBOX_RERUN';

/**
 * Whether `serve` with these arguments should run again with `--single-threaded-gc`: one CPU,
 * the flag not given, no opt-out, and not just asked for its help.
 */
export function needsSingleThreadedGc(
  argv: readonly string[],
  cpus: number = availableParallelism(),
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (env.RAMP_SANDBOX_GC === 'v8' || env[RERUN_ENV] === '1') return false;
  if (argv.includes('--help') || argv.includes('-h')) return false;
  return cpus <= 1 && !execArgv.includes(SINGLE_THREADED_GC);
}

const RELAYED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs this command again in a child node with `--single-threaded-gc` and waits for it. This
 * process then only relays signals and exits as the child did.
 */
export function rerunWithSingleThreadedGc(): void {
  const child = spawn(process.execPath, [...process.execArgv, SINGLE_THREADED_GC, ...process.argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    detached: true,
    env: { ...process.env, [RERUN_ENV]: '1' },
  });
  for (const signal of RELAYED) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    process.stderr.write(
      `ramp-sandbox could not start node with ${SINGLE_THREADED_GC}: ${error.message} (RAMP_SANDBOX_GC=v8 runs without it)\n`,
    );
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1)));
}

/**
 * In the child that `rerunWithSingleThreadedGc` started: `stop` once the parent is gone (its IPC
 * channel closed), so the sandbox never outlives the command that started it.
 */
export function stopWithParent(stop: () => void): void {
  if (process.env[RERUN_ENV] !== '1' || !process.channel) return;
  process.channel.unref();
  process.on('disconnect', stop);
}
