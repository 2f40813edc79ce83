import { writeReport } from '../shared/report-file';
import { parseArgs } from 'node:util';
import { webhookSignatureVectors, webhookSignatureVectorsJson } from '../webhooks';
import { onStdoutClosed } from './output';

const USAGE = `Usage: ramp-sandbox vectors [--out FILE]

Prints the webhook signature test vectors (CONTRACT §18) as JSON: deliveries signed by the
sandbox's own signer and the known mistakes (tampered body, sk_* key, other environment's
key, seconds, stale or future timestamp, missing header, re-serialised body, no sha256=
prefix, uppercase hex), each with valid true or false. Made here, offline, with fixed keys
and instants: the same document as GET /sandbox/webhooks/vectors and
docs/webhook-signature-vectors.json. Feed each case to your verifier (docs/webhooks.md).

  --out FILE    write the JSON to FILE instead of stdout (- for stdout)
  --help, -h    this text
`;

const OPTIONS = { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

/** `ramp-sandbox vectors`: no sandbox needed; exit 2 on bad usage, 1 when FILE cannot be written. */
export async function main(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; strict: true; allowPositionals: false; options: typeof OPTIONS }>>;
  try {
    parsed = parseArgs({ args: argv, strict: true, allowPositionals: false, options: OPTIONS });
  } catch (error) {
    process.stderr.write(`ramp-sandbox vectors: ${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { out, help } = parsed.values;
  if (help) {
    process.stdout.write(USAGE);
    return;
  }
  const vectors = webhookSignatureVectors();
  const json = webhookSignatureVectorsJson(vectors);
  if (out === undefined || out === '-') {
    onStdoutClosed(() => process.exit(0));
    process.stdout.write(json);
    return;
  }
  if (out === '') {
    process.stderr.write(`ramp-sandbox vectors: --out needs a file name\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  try {
    await writeReport(out, json);
  } catch (error) {
    process.stderr.write(`ramp-sandbox vectors: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  process.stderr.write(`ramp-sandbox vectors: wrote ${vectors.cases.length} cases to ${out}\n`);
}
