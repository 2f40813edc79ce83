import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** A small file system of its own, for a disk that fills up for real (CONTRACT §13 saves). */
export interface Tmpfs {
  dir: string;
  /**
   * Fills what is left of it with one file but `leave` bytes (rounded to pages by the kernel): a
   * write larger than those is stored in part (a short write), and the next one fails (ENOSPC).
   */
  fill(leave?: number): void;
  unmount(): void;
}

/**
 * Mounts a tmpfs of `bytes` on a fresh folder; a string saying why when this machine cannot
 * (not root, no CAP_SYS_ADMIN in a container, no `mount`): the caller skips the real-disk
 * variant and says so, its injected variant still runs.
 */
function mountTmpfs(bytes: number): Tmpfs | string {
  const dir = mkdtempSync(join(tmpdir(), 'tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const e = error as { stderr?: Buffer; message: string };
    return `cannot mount a tmpfs here: ${(e.stderr?.toString() || e.message).trim()}`;
  }
  return {
    dir,
    fill(leave = 0) {
      const filler = join(dir, 'filler');
      try {
        writeFileSync(filler, Buffer.alloc(bytes));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
      if (leave > 0) truncateSync(filler, Math.max(0, statSync(filler).size - leave));
    },
    unmount() {
      try {
        execFileSync('umount', [dir], { stdio: 'pipe' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A 1 MiB-or-so tmpfs for the tests of the enclosing `describe`: mounted before them (so a
 * filtered run that runs none of them leaves no mount behind), unmounted after. The getter
 * gives the mount, or why there is none (the test then skips with that reason).
 */
export function tmpfsForBlock(bytes: number): () => Tmpfs | string {
  let disk: Tmpfs | string = 'not mounted';
  beforeAll(() => {
    disk = mountTmpfs(bytes);
    if (typeof disk === 'string') console.warn(`skipped: ${disk}`);
  });
  afterAll(() => {
    if (typeof disk !== 'string') disk.unmount();
  });
  return () => disk;
}
