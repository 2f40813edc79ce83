import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * The container engine from the tests' side: docker or podman, as setup-engine.sh found (or
 * installed) it, and the few commands the container tests run through it. Every container and
 * volume a test makes is named with the `ramp-test-` prefix and removed by `cleanup()`.
 */
const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The tag the working tree's image gets for the tests. */
export const TEST_IMAGE = 'localhost/ramp-sandbox:test';

export interface EngineContext {
  engine: 'docker' | 'podman';
  /** What every engine command needs in its environment (podman: CONTAINERS_CONF, the image format). */
  env: Record<string, string>;
  image: string;
  /** For Testcontainers: the Docker API (podman's own socket for this run). */
  dockerHost: string;
  /** `docker compose` or `podman-compose`, as words; empty when the machine has none. */
  compose: string[];
}

/** Runs setup-engine.sh: the engine and its environment, or why this machine cannot have one. */
export async function prepareEngine(): Promise<Omit<EngineContext, 'image' | 'dockerHost'> | { skip: string }> {
  try {
    const { stdout } = await run('bash', [`${ROOT}test/container/setup-engine.sh`], { maxBuffer: 1 << 24, timeout: 600_000 });
    const settings = Object.fromEntries(
      stdout
        .split('\n')
        .map((line) => /^([A-Z_]+)=(.*)$/.exec(line))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => [m[1]!, m[2]!]),
    );
    const engine = settings.ENGINE === 'docker' ? 'docker' : 'podman';
    // HEALTHCHECK survives only in the docker image format (buildah's default is OCI).
    const env: Record<string, string> =
      engine === 'podman'
        ? { BUILDAH_FORMAT: 'docker', ...(settings.CONTAINERS_CONF ? { CONTAINERS_CONF: settings.CONTAINERS_CONF } : {}) }
        : {};
    return { engine, env, compose: (settings.COMPOSE ?? '').split(' ').filter(Boolean) };
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    return { skip: (e.stderr?.trim().split('\n').pop() ?? e.message).replace(/^\[setup-engine\] /, '') };
  }
}

/** `docker build` / `podman build` of the working tree; the layer cache makes a rebuild seconds. */
export async function buildImage(ctx: Omit<EngineContext, 'image' | 'dockerHost'>): Promise<string> {
  // podman would try the registry for a base it has (the stand-in included): never pull here.
  const pull = ctx.engine === 'podman' ? ['--pull=never'] : [];
  await run(ctx.engine, ['build', ...pull, '-t', TEST_IMAGE, ROOT], {
    env: { ...process.env, ...ctx.env },
    maxBuffer: 1 << 26,
    timeout: 600_000,
  });
  return TEST_IMAGE;
}

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** One engine command; never throws for a non-zero exit (the caller asserts the code). */
export async function engine(ctx: EngineContext, args: string[], timeoutMs = 120_000): Promise<Result> {
  try {
    const { stdout, stderr } = await run(ctx.engine, args, { env: { ...process.env, ...ctx.env }, maxBuffer: 1 << 26, timeout: timeoutMs });
    return { code: 0, stdout, stderr: quiet(stderr) };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: quiet(e.stderr ?? e.message) };
  }
}

/** Without systemd podman logs an error for each health timer it cannot make: noise here. */
function quiet(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !/systemd connection|healthcheck: unable to get systemd/.test(line))
    .join('\n');
}

/** Like `engine`, but a non-zero exit throws with the command's stderr. */
export async function engineOk(ctx: EngineContext, args: string[], timeoutMs?: number): Promise<string> {
  const result = await engine(ctx, args, timeoutMs);
  if (result.code !== 0) throw new Error(`${ctx.engine} ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

/** The name a container on the engine's default network reaches this machine by. */
export function hostAlias(ctx: EngineContext): string {
  return ctx.engine === 'podman' ? 'host.containers.internal' : 'host.docker.internal';
}

/** `run` flags that make `hostAlias` resolve (Docker on Linux needs the host-gateway mapping). */
export function hostAliasArgs(ctx: EngineContext): string[] {
  return ctx.engine === 'docker' ? ['--add-host', 'host.docker.internal:host-gateway'] : [];
}

/**
 * The address on this machine that `hostAlias` reaches: the default bridge's gateway. A receiver
 * for the containers listens there, not on every interface. (Under podman the bridge exists while
 * a container runs: call this once one does.)
 */
export async function bridgeGateway(ctx: EngineContext): Promise<string> {
  const out =
    ctx.engine === 'podman'
      ? await engineOk(ctx, ['network', 'inspect', 'podman', '--format', '{{range .Subnets}}{{.Gateway}}{{end}}'])
      : await engineOk(ctx, ['network', 'inspect', 'bridge', '--format', '{{range .IPAM.Config}}{{.Gateway}}{{end}}']);
  const ip = out.trim().split(/\s+/)[0];
  if (!ip) throw new Error(`no gateway address on the ${ctx.engine} default network`);
  return ip;
}

const made = { containers: new Set<string>(), volumes: new Set<string>(), networks: new Set<string>() };
let counter = 0;

/** A fresh name for a container, volume or network of this test run, removed by `cleanup()`. */
export function name(kind: keyof typeof made, hint: string): string {
  const value = `ramp-test-${hint}-${process.pid}-${++counter}`;
  made[kind].add(value);
  return value;
}

/** Removes every container, then volume and network, that `name` gave out (afterAll, also on failure). */
export async function cleanup(ctx: EngineContext): Promise<void> {
  for (const c of made.containers) await engine(ctx, ctx.engine === 'podman' ? ['rm', '-f', '-v', '-t', '0', c] : ['rm', '-f', '-v', c]);
  for (const v of made.volumes) await engine(ctx, ['volume', 'rm', '-f', v]);
  for (const n of made.networks) await engine(ctx, ['network', 'rm', '-f', n]);
  made.containers.clear();
  made.volumes.clear();
  made.networks.clear();
}
