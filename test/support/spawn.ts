import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** tsx as a loader of this Node process, so the child's PID is the program's own. */
export const TSX_LOADER = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

/**
 * Runs a TypeScript file as `tsx FILE ARGS…` would, but in one process: the tsx CLI runs the
 * program in a second node process, so killing the CLI (SIGKILL above all) left the program
 * running, reparented to init (issue 22: every `npm test` left a sandbox listening). Here the
 * child is the program, and `child.kill()` stops it.
 */
export function spawnTs(file: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  return spawn(process.execPath, ['--import', TSX_LOADER, file, ...args], options);
}

/** Whether a process with this pid is still there (signal 0 checks without sending anything). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
