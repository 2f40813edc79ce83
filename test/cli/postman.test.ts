import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §19: `ramp-sandbox postman` writes the running sandbox's Postman collection.
const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const BIN = join(ROOT, 'src/cli/bin.ts');
const TOKEN = 'postman-cli-token';

let s: TestServer;
let dir: string;
beforeAll(async () => {
  s = await startTestServer({ adminToken: TOKEN });
  dir = await mkdtemp(join(tmpdir(), 'ramp-postman-'));
});
afterAll(async () => {
  await s?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The bin from the sources, in `dir`, without SANDBOX_ADMIN_TOKEN from the environment. */
async function postman(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.SANDBOX_ADMIN_TOKEN;
  try {
    const { stdout, stderr } = await exec(TSX, [BIN, 'postman', '--sandbox', s.url, ...args], { cwd: dir, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const variables = (collection: any) => Object.fromEntries(collection.variable.map((v: any) => [v.key, v.value]));

describe('ramp-sandbox postman (CONTRACT §19)', () => {
  it("writes the demo partner's test collection to the default file and says where", async () => {
    const res = await postman(['--admin-token', TOKEN]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const file = join(dir, 'ramp-sandbox.postman_collection.json');
    expect(res.stdout).toContain(`Wrote ${file}`);
    expect(res.stdout).toMatch(/\d+ requests in 4 folders/);
    const collection = JSON.parse(await readFile(file, 'utf8'));
    expect(collection.info.schema).toBe('https://schema.getpostman.com/json/collection/v2.1.0/collection.json');
    expect(variables(collection)).toMatchObject({
      baseUrl: s.url,
      clientId: s.demo.clientId,
      environment: 'test',
      secretKey: s.demo.keys.test.secret_key,
    });
  }, 30_000);

  it("writes another partner's live collection to standard output with --out -", async () => {
    const other = await s.createPartner({ name: 'CLI' });
    const res = await postman(['--admin-token', TOKEN, '--client-id', other.clientId, '--environment', 'live', '--out', '-']);
    expect(res.code).toBe(0);
    expect(variables(JSON.parse(res.stdout))).toMatchObject({
      clientId: other.clientId,
      environment: 'live',
      encryptionKey: other.keys.live.encryption_key,
    });
  }, 30_000);

  it('refuses a bad environment as usage (exit 2), and says in one line why the sandbox refused (exit 1)', async () => {
    const usage = await postman(['--admin-token', TOKEN, '--environment', 'prod']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^ramp-sandbox postman: --environment must be test or live, not 'prod'\n\nUsage: ramp-sandbox postman/);
    const unknown = await postman(['--admin-token', TOKEN, '--client-id', 'ptr_nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^ramp-sandbox postman: GET \/sandbox\/postman\.json answered 404 E_NOTFOUND: .*ptr_nobody.*\n$/);
    const anonymous = await postman([]);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/answered 401 E_UNAUTHORIZED: .*\(pass --admin-token or set SANDBOX_ADMIN_TOKEN\)\n$/);
  }, 60_000);
});
