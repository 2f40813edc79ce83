import { writeFileSync } from 'node:fs';
import { renderLifecycleDoc } from '../orders/lifecycle-doc';

/** `npm run docs:lifecycle`: rewrites docs/lifecycle.md from the order machines. */
const target = new URL('../../docs/lifecycle.md', import.meta.url);
writeFileSync(target, renderLifecycleDoc());
process.stdout.write(`wrote ${target.pathname}\n`);
