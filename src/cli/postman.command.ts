import { writeReport } from '../shared/report-file';
import { resolve } from 'node:path';
import { POSTMAN_FILE_NAME } from '../http/control/exports.routes';
import { REMOTE_USAGE, runRemote, UsageError } from './remote';

const USAGE = `Usage: ramp-sandbox postman [--out FILE] [--client-id ID] [--environment test|live] [--sandbox URL]

Writes a Postman v2.1 collection of every /v1 route of a running sandbox (its
GET /sandbox/postman.json): the partner's client id and keys as collection variables, a
collection-level pre-request script that signs each request (spec §5.2), and a "Happy path"
folder (quote, order, get, cancel) that checks every answer. Import the file into Postman, or
run it: npx newman run FILE --folder "Happy path".

  --out FILE            where to write it (default ${POSTMAN_FILE_NAME}; - for standard output)
  --client-id ID        the partner whose keys it carries (default: the demo partner)
  --environment ENV     test (default) or live: which of its key sets
${REMOTE_USAGE}
`;

const OPTIONS = {
  out: { type: 'string', short: 'o', default: POSTMAN_FILE_NAME },
  'client-id': { type: 'string' },
  environment: { type: 'string', default: 'test' },
} as const;

/** `ramp-sandbox postman`: saves the sandbox's Postman collection and says where. */
export async function main(argv: string[]): Promise<void> {
  await runRemote(
    'postman',
    USAGE,
    OPTIONS,
    async ({ values, positionals, control }) => {
      if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
      const environment = values.environment;
      if (environment !== 'test' && environment !== 'live')
        throw new UsageError(`--environment must be test or live, not '${environment}'`);
      const clientId = values['client-id'];
      const collection = await control.exportPostmanCollection({
        query: { environment, ...(clientId === undefined ? {} : { client_id: clientId }) },
      });
      const text = `${JSON.stringify(collection, null, 2)}\n`;
      if (values.out === '-') {
        process.stdout.write(text);
        return;
      }
      const file = resolve(values.out);
      await writeReport(file, text);
      const requests = collection.item.reduce((n, folder) => n + (folder.item?.length ?? 0), 0);
      process.stdout.write(
        `Wrote ${file}: "${collection.info.name}", ${requests} requests in ${collection.item.length} folders.\nImport it into Postman (Import, then the file), or run its Happy path: npx newman run ${JSON.stringify(values.out)} --folder "Happy path"\n`,
      );
    },
    argv,
  );
}
