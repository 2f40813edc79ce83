import { constants } from 'node:os';
import { signedCurl } from '../auth';
import { ISO } from '../clock';
import { ConfigError, loadConfig, USAGE } from '../sandbox/config';
import { exposureWarning } from '../http/edge/admin';
import { VERSION } from '../sandbox/sandbox';
import { isWildcardHost, startServer } from '../sandbox/server';
import { FixtureError } from '../reference';
import { ApiError } from '../shared/errors';
import { StateFileError } from '../sandbox/state/file';
import { prepareReadyFile, removeReadyFile, writeReadyFile } from '../sandbox/ready-file';
import { stopWithParent } from './gc-threads';

/**
 * `ramp-sandbox serve` (`npm start`): the sandbox on 127.0.0.1:4010 with the demo partner, and
 * how to call it. Resolves once listening; SIGINT/SIGTERM stop it gracefully and exit 0 (1 when
 * `--state` could not be saved).
 */
export async function main(argv: string[]): Promise<void> {
  try {
    await serve(argv);
  } catch (error) {
    process.stderr.write(`ramp-sandbox failed to start: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  }
}

async function serve(argv: string[]): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(argv, process.env);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof TypeError) {
      process.stderr.write(`${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    throw error;
  }
  if (config === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (config.readyFile) {
    try {
      prepareReadyFile(config.readyFile);
    } catch (error) {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exit(1);
    }
  }
  // A signal while the sandbox starts (a large --state file loads for seconds) stops it at once:
  // nothing has changed yet, so nothing is saved and the file is left as it was. Node run as PID 1
  // (the container) ignores a signal it has no listener for, so one listener stays from here to
  // the exit and only what it does changes once the sandbox is up: swapping listeners would drop
  // a signal that arrived during the restore's synchronous step and was still queued.
  const statePath = config.statePath;
  let onSignal: (signal: NodeJS.Signals) => void = (signal) => {
    process.stderr.write(`${signal} while starting: stopped before the sandbox was up${statePath ? ` (${statePath} is unchanged)` : ''}\n`);
    process.exit(128 + (constants.signals[signal] ?? 0));
  };
  const listener = (signal: NodeJS.Signals) => onSignal(signal);
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer(config);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (e.code === 'EADDRINUSE') {
      process.stderr.write(
        `Port ${config.port} on ${config.host} is already in use: stop the other process or pass --port N (0 picks a free port).\n`,
      );
      process.exit(1);
    }
    if (e instanceof FixtureError) {
      process.stderr.write(`Bad fixtures: ${e.message}\n`);
      process.exit(1);
    }
    if (e instanceof StateFileError || (config.statePath && e instanceof ApiError)) {
      process.stderr.write(`Bad state file: ${e instanceof ApiError ? `${config.statePath}: ` : ''}${e.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const { sandbox, url } = running;
  const readyFile = config.readyFile;
  // CONTRACT §9: the first signal stops gracefully; a second one (Ctrl-C again) exits at once.
  // In place as soon as the sandbox is up, before the ready file and the banner announce it: a
  // signal sent the moment the banner shows used to find Node's default (killed, nothing saved).
  // The process exits after its stop whatever its output does: a reader of stdout that went
  // away (EPIPE) once made the log calls throw, and the orphan never exited (issue 22).
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  const quietly = (log: () => void) => {
    try {
      log();
    } catch {
      // a closed output must not keep the process alive
    }
  };
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      quietly(() => sandbox.logger.warn({ signal }, 'second signal: exiting without waiting'));
      process.exit(1);
    }
    stopping = true;
    quietly(() => sandbox.logger.info({ signal }, 'signal received'));
    // CONTRACT §13: a state that could not be saved is a non-zero exit, so a supervisor sees it.
    running.shutdown().then(
      (report) => {
        if (readyFile) quietly(() => removeReadyFile(readyFile));
        process.exit(report.saveError === undefined ? 0 : 1);
      },
      (error: unknown) => {
        quietly(() => sandbox.logger.error({ err: error }, 'the graceful stop failed'));
        process.exit(1);
      },
    );
  };
  onSignal = stop;
  stopWithParent(() => stop('SIGTERM'));
  const demo = sandbox.demoPartner;
  const curl = signedCurl(url, {
    method: 'GET',
    path: '/v1/networks',
    clientId: demo.client_id,
    secretKey: demo.keys.test.secret_key,
    encryptionKey: demo.keys.test.encryption_key,
  });
  const clock = sandbox.clock;
  // CONTRACT §4: a sandbox others can reach, with the control API open, says so (log and banner).
  const exposed = exposureWarning(sandbox.config);
  if (exposed) sandbox.logger.warn({ host: sandbox.config.host, url }, exposed);
  // CONTRACT §18: the harness's signal that the sandbox is up, written before the banner, so whoever
  // sees the banner finds the file.
  if (readyFile) {
    try {
      writeReadyFile(readyFile, {
        url,
        pid: process.pid,
        version: VERSION,
        client_id: demo.client_id,
        keys: { test: { ...demo.keys.test }, live: { ...demo.keys.live } },
      });
    } catch (error) {
      process.stderr.write(`${(error as Error).message}\n`);
      await running.shutdown();
      process.exit(1);
    }
  }
  process.stdout.write(
    [
      '',
      // On a wildcard (in a container: HOST=0.0.0.0) `url` names the loopback, the address a user
      // opens and a published port reaches; the line says what it is bound to (docs/container.md).
      `ramp-sandbox ${VERSION} listening on ${url}${isWildcardHost(config.host) ? ` (bound to ${config.host}: every interface)` : ''}`,
      ...(exposed ? ['', exposed, ''] : []),
      `  clock ${clock.mode}${clock.mode === 'realtime' ? ` x${clock.speed}` : ''}, virtual now ${ISO(clock.now())}, seed ${sandbox.config.seed}`,
      '',
      'Demo partner (KYB approved)',
      `  client id (svc-client-id)  ${demo.client_id}`,
      ...(['test', 'live'] as const).flatMap((env) => [
        `  ${env} public key            ${demo.keys[env].public_key}`,
        `  ${env} secret key            ${demo.keys[env].secret_key}`,
        `  ${env} encryption key        ${demo.keys[env].encryption_key}`,
      ]),
      '',
      `Dashboard      ${url}/sandbox/dashboard`,
      `Control API    ${url}/sandbox  (clock, partners, reset; see docs/control-api.md)`,
      `Health         ${url}/health`,
      '',
      'A signed request (test keys; the timestamp is valid for 5 minutes, `ramp-sandbox sign` or `npm run sign` makes a fresh one):',
      '',
      curl,
      '',
      '',
    ].join('\n'),
  );
}
