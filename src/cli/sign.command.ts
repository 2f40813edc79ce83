import { parseArgs } from 'node:util';
import { signedCurl } from '../auth';
import { createSandbox } from '../sandbox/sandbox';

const USAGE = `Usage: ramp-sandbox sign [options] METHOD PATH [BODY]
       (from a clone: npm run sign -- [options] METHOD PATH [BODY])

Prints a signed curl command (spec §5.2) with a fresh timestamp, for the demo partner of
--seed (default 1, as npm start) or for the keys you pass.

  --env test|live         which key set (default test)
  --base URL              sandbox base URL (default http://127.0.0.1:4010)
  --seed N                demo partner of this seed
  --client-id ID --secret-key SK --encryption-key ENC   sign as another partner

Example: ramp-sandbox sign POST /v1/orders/quote '{"from":{"currency":"NGN","amount":50000},"to":{"currency":"USDT","network":"base-sepolia"}}'
`;

const OPTIONS = {
  env: { type: 'string', default: 'test' },
  base: { type: 'string', default: 'http://127.0.0.1:4010' },
  seed: { type: 'string', default: '1' },
  'client-id': { type: 'string' },
  'secret-key': { type: 'string' },
  'encryption-key': { type: 'string' },
  help: { type: 'boolean' },
} as const;

/** `ramp-sandbox sign` (`npm run sign`): prints a signed curl; exit 2 on bad usage. */
export async function main(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>>;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { values, positionals } = parsed;
  const [method, path, body] = positionals;
  if (values.help || !method || !path || (values.env !== 'test' && values.env !== 'live')) {
    process.stdout.write(USAGE);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const refused = signUsageProblem(values.seed, path, values.base);
  if (refused) {
    process.stderr.write(`ramp-sandbox sign: ${refused}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  let clientId = values['client-id'];
  let secretKey = values['secret-key'];
  let encryptionKey = values['encryption-key'];
  if (!clientId || !secretKey || !encryptionKey) {
    const sandbox = createSandbox({ seed: Number(values.seed), logLevel: 'silent' });
    const demo = sandbox.demoPartner;
    sandbox.close();
    clientId ??= demo.client_id;
    secretKey ??= demo.keys[values.env].secret_key;
    encryptionKey ??= demo.keys[values.env].encryption_key;
  }
  process.stdout.write(`${signedCurl(values.base, { method: method.toUpperCase(), path, body, clientId, secretKey, encryptionKey })}\n`);
}

/** What is wrong with sign's arguments, if anything: keys for a seed no sandbox has, or a curl that cannot work. */
function signUsageProblem(seed: string, path: string, base: string): string | undefined {
  if (seed.trim() === '' || !Number.isInteger(Number(seed))) return `--seed: ${seed} is not valid (a whole number, as serve takes it)`;
  if (!path.startsWith('/')) return `${path}: the path starts with / (e.g. /v1/networks)`;
  try {
    const url = new URL(base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError();
  } catch {
    return `--base: ${base} is not an http(s) URL (e.g. http://127.0.0.1:4010)`;
  }
  return undefined;
}
