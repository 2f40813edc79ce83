import { needsSingleThreadedGc, rerunWithSingleThreadedGc } from './gc-threads';
import { runMain } from './run-main';

/** `npm start` under tsx: the same as `ramp-sandbox serve` (logic in serve.command.ts). */
const argv = process.argv.slice(2);
// On one CPU, run again with V8's GC on the main thread (decision 017), before loading the sandbox.
if (needsSingleThreadedGc(argv)) rerunWithSingleThreadedGc();
else runMain((await import('./serve.command')).main, argv);
