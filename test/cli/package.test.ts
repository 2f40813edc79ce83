import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { signedHeaders } from '../support/sign';
import { verifyWebhook } from '../../src';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * CONTRACT §14: the package as a user gets it. `npm pack` (prepack builds dist/), then
 * `npm install <tarball>` into an empty directory and run the bin with plain Node: no tsx, no
 * TypeScript, no source tree. Slow (a build and an install), so one file and long timeouts.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VERSION: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
const SLOW = 180_000;

let work: string;
let app: string;
let installed: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ramp-pkg-'));
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
  await run('npm', ['pack', '--pack-destination', work], { cwd: ROOT, env: npmEnv(), maxBuffer: 1 << 24 });
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  await run('npm', ['install', join(work, tarball!), '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock'], {
    cwd: app,
    env: npmEnv(),
  });
  installed = join(app, 'node_modules', 'ramp-sandbox');
}, SLOW);

afterAll(() => {
  for (const child of children.splice(0)) stopGroup(child);
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `npx ramp-sandbox …` in the consumer directory: exit code, stdout and stderr. */
async function npx(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['ramp-sandbox', ...args], { cwd: app, env: { ...npmEnv(), CI: 'true' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the packed tarball installed in an empty directory (CONTRACT §14)', () => {
  it('ships compiled JavaScript, one declaration file per entry and the data, but no sources or tests', () => {
    const files = walk(installed);
    expect(files).toContain('dist/cli/bin.js');
    expect(files.filter((f) => f.endsWith('.d.ts')).sort()).toEqual(['dist/index.d.ts', 'dist/testcontainers.d.ts']);
    expect(files).toContain('fixtures/networks.json');
    expect(files).toContain('scenarios/cancel.yaml');
    expect(files.filter((f) => /^(src|test|bench|examples)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);
    for (const f of files.filter((name) => name.endsWith('.js'))) {
      const text = readFileSync(join(installed, f), 'utf8');
      // (A bundled dependency's JSDoc may name its own .d.ts: `@type {import('./list.d.ts')…}`.)
      expect(text, f).not.toMatch(/from\s+["'][^"']*(?<!\.d)\.ts["']|import\(["'][^"']*(?<!\.d)\.ts["']\)|["']tsx["']/);
    }
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
  });

  it('bundles the command with its dependencies, one copy of each package version, pino and the MCP SDK left out (decision 013)', () => {
    const cli = join(installed, 'dist', 'cli');
    const chunks = readdirSync(cli).filter((name) => name.endsWith('.js'));
    const imported = new Set<string>();
    const bundled: string[] = [];
    for (const name of chunks) {
      const text = readFileSync(join(cli, name), 'utf8');
      // Statements at the start of a line (esbuild's own); a bundled JSDoc line starts with ` *`.
      for (const m of text.matchAll(
        /^(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["'];?$|^[^*/\n][^\n]*?\b(?:import|__require)\(\s*["']([^"']+)["']\s*\)/gm,
      )) {
        imported.add((m[1] ?? m[2])!);
      }
      for (const m of text.matchAll(/^\/\/ (node_modules\/\S+)$/gm)) bundled.push(m[1]!);
    }
    const packages = [...imported].filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s));
    for (const s of packages) expect(s, 'a package the command imports at run time').toMatch(/^(pino|@modelcontextprotocol\/sdk)(\/|$)/);
    expect(packages.some((s) => s.startsWith('pino'))).toBe(true);
    // The copies esbuild bundled, each a file of a package of the build's node_modules: no file
    // of the same package name and version twice (mime-types 2.1.35 sits in three places there).
    expect(bundled.some((p) => p.startsWith('node_modules/koa/'))).toBe(true);
    const seen = new Map<string, string>();
    // (esbuild may mark one module twice, its hoisted imports and its body: distinct paths.)
    for (const path of new Set(bundled)) {
      const at = path.lastIndexOf('node_modules/') + 'node_modules/'.length;
      const parts = path.slice(at).split('/');
      const name = parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
      const root = path.slice(0, at + name.length);
      const { version } = JSON.parse(readFileSync(join(ROOT, root, 'package.json'), 'utf8')) as { version: string };
      const key = `${name}@${version}${path.slice(root.length)}`;
      expect(seen.get(key), `${path} is ${key}, already bundled`).toBeUndefined();
      seen.set(key, path);
    }
    // zod reached as `import * as z` is tree-shaken: its English messages, no other locale.
    expect(bundled.filter((p) => p.startsWith('node_modules/zod/v4/locales/'))).toEqual(['node_modules/zod/v4/locales/en.js']);
  });

  it(
    'answers --help with the subcommands, --version, and exit 2 for an unknown command',
    async () => {
      const help = await npx(['--help']);
      expect(help.code).toBe(0);
      for (const command of ['serve', 'scenarios', 'sign']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
      expect((await npx(['--version'])).stdout.trim()).toBe(VERSION);
      expect((await npx(['serve', '--help'])).stdout).toMatch(/--clock MODE/);
      // The MCP server's SDK is an optional peer dependency: without it, one line that says how.
      const mcp = await npx(['mcp']);
      expect(mcp.code).toBe(1);
      expect(mcp.stderr.trim().split('\n').at(-1)).toBe(
        'ramp-sandbox mcp needs @modelcontextprotocol/sdk, an optional peer dependency: npm install @modelcontextprotocol/sdk beside ramp-sandbox, or run npx -p ramp-sandbox -p @modelcontextprotocol/sdk ramp-sandbox mcp',
      );
      // Its help still shows (it exited 1 with the line above), saying what it needs.
      for (const args of [
        ['mcp', '--help'],
        ['help', 'mcp'],
      ]) {
        const mcpHelp = await npx(args);
        expect(mcpHelp.code, args.join(' ')).toBe(0);
        expect(mcpHelp.stdout).toMatch(/^Usage: ramp-sandbox mcp \[options\]/);
        expect(mcpHelp.stdout).toMatch(/--max-message-bytes N/);
        expect(mcpHelp.stdout).toMatch(/It needs @modelcontextprotocol\/sdk, an optional peer dependency, not installed here/);
      }
      const unknown = await npx(['serv']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/unknown command 'serv'/);
    },
    SLOW,
  );

  it(
    'serves /health and a signed /v1/networks with the demo keys it prints, and stops on SIGTERM',
    async () => {
      // Its own process group: npm exec does not pass SIGTERM on to the command it runs, so the
      // signal goes to the group, as a terminal's Ctrl-C or a process manager's stop would.
      const child = spawn('npx', ['ramp-sandbox', 'serve', '--port', '0', '--host', '127.0.0.1', '--log-level', 'warn'], {
        cwd: app,
        env: npmEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      children.push(child);
      const banner = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 30_000);
        child.stdout!.on('data', (chunk) => {
          out += String(chunk);
          if (/curl[\s\S]*svc-signature[^\n]*\n\n/.test(out)) {
            clearTimeout(timer);
            resolve(out);
          }
        });
        child.stderr!.on('data', (chunk) => (out += String(chunk)));
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const url = banner.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)![1]!;
      const health = await (await fetch(`${url}/health`)).json();
      expect(health).toMatchObject({ status: true, data: { version: VERSION } });

      const clientId = banner.match(/client id \(svc-client-id\)\s+(\S+)/)![1]!;
      const key = (kind: string) => banner.match(new RegExp(`test ${kind} key\\s+(\\S+)`))![1]!;
      const keys = { public_key: key('public'), secret_key: key('secret'), encryption_key: key('encryption') };
      const networks = await fetch(`${url}/v1/networks`, {
        headers: signedHeaders({ clientId, keys, method: 'GET', path: '/v1/networks' }),
      });
      expect(networks.status).toBe(200);
      const body = (await networks.json()) as { status: boolean; data: Array<{ identifier: string }> };
      expect(body.data.map((n) => n.identifier)).toContain('base-sepolia');

      // The dashboard and every asset it loads come from the installed package (CONTRACT §15).
      const page = await fetch(`${url}/sandbox/dashboard`);
      expect(page.status).toBe(200);
      const html = await page.text();
      const assets = [...html.matchAll(/\/sandbox\/dashboard\/assets\/[\w.-]+/g)].map((m) => m[0]);
      expect(assets.length).toBeGreaterThan(0);
      for (const asset of [...assets, '/sandbox/dashboard/assets/app.js']) {
        expect((await fetch(url + asset)).status, asset).toBe(200);
      }

      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      stopGroup(child);
      await exited;
      await expect(waitUntilRefused(`${url}/health`)).resolves.toBe(true);
    },
    SLOW,
  );

  it(
    'runs a scenario file from the installed scenarios/, and one picked by name',
    async () => {
      const byPath = await npx(['scenarios', join(installed, 'scenarios', 'cancel.yaml')]);
      expect(byPath.code, byPath.stdout + byPath.stderr).toBe(0);
      expect(byPath.stdout).toMatch(/^1 passed, 0 failed$/m);
      const byName = await npx(['scenarios', 'swap-happy-path']);
      expect(byName.code, byName.stdout + byName.stderr).toBe(0);
    },
    SLOW,
  );

  it(
    "imports startSandbox from 'ramp-sandbox' in plain Node",
    async () => {
      const script = [
        "import { startSandbox, VERSION } from 'ramp-sandbox';",
        'const s = await startSandbox({ seed: 3 });',
        "const res = await fetch(s.url + '/health');",
        "const advanced = await s.clock.advance('5m');",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal of the script run in Node, not of this file
        "const missing = await s.orders.get('ORD_nope').catch((e) => `${e.name} ${e.status} ${e.code}`);",
        'console.log(VERSION, res.status, advanced.clock.mode, missing);',
        'await s.close();',
      ].join('\n');
      const { stdout } = await run('node', ['--input-type=module', '-e', script], { cwd: app });
      expect(stdout.trim()).toBe(`${VERSION} 200 manual SandboxError 404 E_NOTFOUND`);
    },
    SLOW,
  );

  it(
    "ships 'ramp-sandbox/testcontainers' (CONTRACT §20): it needs testcontainers, an optional peer, and loads and type-checks with it",
    async () => {
      const script =
        "const m = await import('ramp-sandbox/testcontainers'); const c = new m.RampSandboxContainer('img:1').withSeed(7).withClock('manual'); console.log(typeof m.RampSandboxContainer, c instanceof m.RampSandboxContainer, m.RAMP_SANDBOX_PORT);";
      // Without it: the import fails naming the package to install.
      await expect(run('node', ['--input-type=module', '-e', script], { cwd: app })).rejects.toThrow(
        /Cannot find package 'testcontainers'/,
      );
      // With it (this repository's copy, as a user's install would put it beside ramp-sandbox):
      const peer = join(app, 'node_modules', 'testcontainers');
      symlinkSync(join(ROOT, 'node_modules', 'testcontainers'), peer, 'dir');
      try {
        const { stdout } = await run('node', ['--input-type=module', '-e', script], { cwd: app });
        expect(stdout.trim()).toBe('function true 4010');
        writeFileSync(
          join(app, 'containers.ts'),
          [
            "import { RampSandboxContainer, type StartedRampSandboxContainer } from 'ramp-sandbox/testcontainers';",
            'export async function start(): Promise<StartedRampSandboxContainer> {',
            "  const s = await new RampSandboxContainer().withSeed(7).withClock('manual').start();",
            "  const clock: 'manual' | 'realtime' = (await s.control.getClock()).mode;",
            '  const key: string = s.partner.test.secret_key;',
            '  console.log(s.url, clock, key);',
            '  return s;',
            '}',
            '',
          ].join('\n'),
        );
        const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
        // skipLibCheck: testcontainers' own declarations are not this package's to vouch for.
        const options = [
          '--noEmit',
          '--strict',
          '--skipLibCheck',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          '--types',
          'node',
          '--typeRoots',
          join(ROOT, 'node_modules', '@types'),
        ];
        await expect(run(tsc, [...options, 'containers.ts'], { cwd: app })).resolves.toBeDefined();
      } finally {
        rmSync(peer, { force: true });
        rmSync(join(app, 'containers.ts'), { force: true });
      }
    },
    SLOW,
  );

  it(
    'type-checks a consumer under strict nodenext resolution, without skipLibCheck',
    async () => {
      writeFileSync(
        join(app, 'consumer.ts'),
        [
          "import { startSandbox, startServer, signRequest, SandboxError, type SandboxHandle, type OrderDetail, type RunningSandbox } from 'ramp-sandbox';",
          "const s: SandboxHandle = await startSandbox({ clock: 'manual', seed: 1, webhookUrl: 'http://127.0.0.1:9/hooks' });",
          "const headers: Record<string, string> = signRequest({ method: 'GET', path: '/v1/networks', clientId: s.partner.clientId, secretKey: s.partner.test.secret_key, encryptionKey: s.partner.test.encryption_key });",
          "const order: OrderDetail | string = await s.orders.payin('ORD_x', { amount: 1 }).catch((e: unknown) => (e instanceof SandboxError ? e.code : 'other'));",
          "const fired: number = (await s.clock.advance('1m')).fired_count;",
          'console.log(headers, order, fired, s.clock.now().toISOString());',
          'await s.close();',
          "const bare: RunningSandbox = await startServer({ port: 0, clockMode: 'manual' });",
          'await bare.close();',
          '',
        ].join('\n'),
      );
      const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
      const options = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
      // @types/node comes from this repository: a user's project has its own.
      const types = ['--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types')];
      await expect(run(tsc, [...options, ...types, 'consumer.ts'], { cwd: app })).resolves.toBeDefined();
    },
    SLOW,
  );
});

describe('action.yml, the GitHub Action (CONTRACT §18), its steps run as written against the tarball', () => {
  /** The action's steps run as GitHub runs them, with these inputs; what they exported, and the checks `check` makes. */
  async function runAction(
    given: Record<string, string>,
    check: (exported: Record<string, string>, outputs: Record<string, string>) => Promise<void> | void,
    files: { GITHUB_ENV: string; GITHUB_OUTPUT: string },
    runner: string,
  ): Promise<void> {
    const action = parseYaml(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
      runs: { using: string; steps: Array<{ id?: string; if?: string; shell: string; env?: Record<string, string>; run: string }> };
      inputs: Record<string, { default?: string }>;
    };
    expect(action.runs.using).toBe('composite');
    const inputs = Object.fromEntries(Object.entries(action.inputs).map(([name, spec]) => [name, given[name] ?? spec.default ?? '']));
    for (const file of Object.values(files)) writeFileSync(file, '');
    // GitHub's own evaluation of what the action uses: ${{ inputs.x }} in env, and if: inputs.x != ''.
    const expression = (text: string) =>
      text.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, name: string) => {
        if (!(name in inputs)) throw new Error(`action.yml uses an input it does not declare: ${name}`);
        return inputs[name]!;
      });
    const condition = (text: string): boolean =>
      text.split(' && ').every((part) => {
        const m = /^inputs\.([\w-]+) (!=|==) ''$/.exec(part.trim());
        if (!m) throw new Error(`an if: this test does not evaluate: ${text}`);
        return (inputs[m[1]!] !== '') === (m[2] === '!=');
      });
    let jobEnv: Record<string, string> = {};
    try {
      for (const step of action.runs.steps) {
        if (step.if !== undefined && !condition(step.if)) continue;
        expect(step.shell).toBe('bash');
        // Run as written: every expression is in env, none in the script.
        expect(step.run).not.toContain('${{');
        const script = join(runner, `step-${step.id ?? 'x'}.sh`);
        writeFileSync(script, step.run);
        const env: NodeJS.ProcessEnv = {
          ...npmEnv(),
          npm_config_prefer_offline: 'true',
          ...jobEnv,
          ...files,
          RUNNER_TEMP: runner,
          GITHUB_ACTION_PATH: ROOT,
        };
        for (const [name, value] of Object.entries(step.env ?? {})) env[name] = expression(value);
        // As GitHub runs shell: bash.
        const result = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
          env,
          cwd: work,
          maxBuffer: 1 << 24,
        }).catch((e: unknown) => e as { code: number; stdout: string; stderr: string });
        expect(
          (result as { code?: number }).code ?? 0,
          `${step.run}\n${(result as { stdout: string }).stdout}${(result as { stderr: string }).stderr}`,
        ).toBe(0);
        jobEnv = { ...jobEnv, ...pairs(readFileSync(files.GITHUB_ENV, 'utf8')) };
      }
      await check(pairs(readFileSync(files.GITHUB_ENV, 'utf8')), pairs(readFileSync(files.GITHUB_OUTPUT, 'utf8')));
    } finally {
      // A composite action has no post step: the job's end stops the sandbox; here the test does.
      const exported = pairs(readFileSync(files.GITHUB_ENV, 'utf8'));
      const pid = Number(exported.RAMP_SANDBOX_PID);
      if (pid > 0) process.kill(pid, 'SIGTERM');
      if (exported.RAMP_SANDBOX_URL) await expect(waitUntilRefused(`${exported.RAMP_SANDBOX_URL}/health`)).resolves.toBe(true);
    }
  }

  const runnerFiles = () => {
    const runner = mkdtempSync(join(work, 'runner-'));
    return { runner, files: { GITHUB_ENV: join(runner, 'env'), GITHUB_OUTPUT: join(runner, 'output') } };
  };
  const tarball = () => join(work, readdirSync(work).find((name) => name.endsWith('.tgz'))!);

  it(
    'starts the sandbox, exports the demo keys to GITHUB_ENV and GITHUB_OUTPUT, runs the scenarios with a JUnit report',
    async () => {
      const junit = join(work, 'action-junit.xml');
      const readiness = join(work, 'action-readiness.json');
      const { runner, files } = runnerFiles();
      const given = { version: tarball(), port: '0', seed: '7', scenarios: 'cancel onramp-happy-path', junit, readiness };
      await runAction(
        given,
        async (exported, outputs) => {
          for (const name of ['URL', 'CLIENT_ID', 'SECRET_KEY', 'ENCRYPTION_KEY', 'PUBLIC_KEY'])
            expect(exported[`RAMP_SANDBOX_${name}`], name).toBeTruthy();
          expect(outputs).toMatchObject({
            url: exported.RAMP_SANDBOX_URL,
            'client-id': exported.RAMP_SANDBOX_CLIENT_ID,
            'secret-key': exported.RAMP_SANDBOX_SECRET_KEY,
          });
          expect(exported.RAMP_SANDBOX_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
          expect(exported.RAMP_SANDBOX_SECRET_KEY).toMatch(/^sk_test_/);
          // The exported variables are enough for a signed call.
          const keys = {
            public_key: exported.RAMP_SANDBOX_PUBLIC_KEY!,
            secret_key: exported.RAMP_SANDBOX_SECRET_KEY!,
            encryption_key: exported.RAMP_SANDBOX_ENCRYPTION_KEY!,
          };
          const res = await fetch(`${exported.RAMP_SANDBOX_URL}/v1/networks`, {
            headers: signedHeaders({ clientId: exported.RAMP_SANDBOX_CLIENT_ID!, keys, method: 'GET', path: '/v1/networks' }),
          });
          expect(res.status).toBe(200);
          const health = await (await fetch(`${exported.RAMP_SANDBOX_URL}/health`)).json();
          expect(health).toMatchObject({ status: true, data: { version: VERSION } });
          const report = readFileSync(junit, 'utf8');
          expect(report).toMatch(/<testsuite [^>]*tests="2"[^>]*failures="0"/);
          expect(report).toContain('name="cancel');
          // CONTRACT §21: the readiness input, with scenarios, writes a receiver-only report of the demo partner.
          expect(JSON.parse(readFileSync(readiness, 'utf8'))).toMatchObject({
            client_id: exported.RAMP_SANDBOX_CLIENT_ID,
            scope: 'receiver',
            verdict: expect.stringMatching(/^(?:incomplete|not_ready)$/),
          });
        },
        files,
        runner,
      );
    },
    SLOW,
  );

  it(
    'lets your receiver verify every scenario delivery with the keys it exported (target given, no readiness)',
    async () => {
      // Without readiness, each scenario made a partner of its own, with keys no receiver held:
      // a correct receiver refused every delivery, and the documented usage could not pass.
      const { runner, files } = runnerFiles();
      const verdicts: string[] = [];
      const receiver = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const exported = pairs(readFileSync(files.GITHUB_ENV, 'utf8'));
          try {
            verifyWebhook(Buffer.concat(chunks), req.headers, {
              clientId: exported.RAMP_SANDBOX_CLIENT_ID!,
              encryptionKey: exported.RAMP_SANDBOX_ENCRYPTION_KEY!,
              path: req.url!,
            });
            verdicts.push('ok');
            res.writeHead(200).end();
          } catch (error) {
            verdicts.push(String((error as { reason?: string }).reason ?? error));
            res.writeHead(401).end();
          }
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const junit = join(work, 'action-target-junit.xml');
      try {
        await runAction(
          { version: tarball(), port: '0', seed: '7', scenarios: 'onramp-happy-path', target, junit },
          () => {
            expect(readFileSync(junit, 'utf8')).toMatch(/<testsuite [^>]*tests="1"[^>]*failures="0"/);
            expect(verdicts.length).toBeGreaterThan(0);
            expect(verdicts.filter((v) => v !== 'ok')).toEqual([]);
          },
          files,
          runner,
        );
      } finally {
        receiver.closeAllConnections();
        await new Promise((resolve) => receiver.close(resolve));
      }
    },
    SLOW,
  );
});

/** NAME=value lines, as GitHub reads GITHUB_ENV and GITHUB_OUTPUT. */
function pairs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

/**
 * The environment without what `npm test` adds for its own package (npm_config_local_prefix,
 * npm_package_*, …): a nested npm in another directory must not act on this repository.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) && !/^npm_config_(cache|userconfig|globalconfig|cafile|registry)$/i.test(name)) continue;
    env[name] = value;
  }
  return env;
}

/** SIGTERM to the child's process group (npx, its shell and the node it runs). */
function stopGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

/** True once nothing listens at `url` any more (the server closed and its process ended). */
async function waitUntilRefused(url: string): Promise<boolean> {
  for (let i = 0; i < 50; i += 1) {
    try {
      await fetch(url);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** Every file under `dir`, as paths relative to it with forward slashes. */
function walk(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    const rel = `${prefix}${name}`;
    if (rel === 'node_modules') return [];
    return statSync(join(dir, name)).isDirectory() ? walk(join(dir, name), `${rel}/`) : [rel];
  });
}
