import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildImage, prepareEngine, type EngineContext } from './engine';

/**
 * The container level's set-up, once per run (CONTRACT §20): the engine (installed and
 * configured when missing, test/container/setup-engine.sh), the image built from the working
 * tree, and for podman a Docker-API socket for Testcontainers. What it made is given to the test
 * files with `inject('container')`. Under CI=true a level that cannot run fails here; elsewhere
 * (a developer's machine without an engine) its files are skipped with the reason printed.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const prepared = await prepareEngine();
  if ('skip' in prepared) {
    if (process.env.CI === 'true') throw new Error(`test:container cannot run under CI=true: ${prepared.skip}`);
    process.stderr.write(`\n[test:container] skipped: ${prepared.skip}\n\n`);
    project.provide('container', { skip: prepared.skip });
    return async () => {};
  }
  const started = Date.now();
  const image = await buildImage(prepared);
  process.stdout.write(`[test:container] ${prepared.engine} build of ${image}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

  let service: ChildProcess | undefined;
  let socketDir: string | undefined;
  let dockerHost = process.env.DOCKER_HOST ?? '';
  if (prepared.engine === 'podman') {
    // Testcontainers speaks the Docker API: podman serves it on a socket of its own for this run.
    socketDir = mkdtempSync(join(tmpdir(), 'ramp-podman-'));
    const socket = join(socketDir, 'podman.sock');
    service = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
      env: { ...process.env, ...prepared.env },
      stdio: 'ignore',
    });
    for (let i = 0; i < 200 && !existsSync(socket); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    if (!existsSync(socket)) throw new Error('podman system service did not open its socket within 10 s');
    dockerHost = `unix://${socket}`;
  }
  const context: EngineContext = { ...prepared, image, dockerHost };
  project.provide('container', context);
  return async () => {
    if (service?.pid) service.kill('SIGTERM');
    if (socketDir) rmSync(socketDir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    container: EngineContext | { skip: string };
  }
}
