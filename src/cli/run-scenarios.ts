import { main } from './scenarios.command';
import { runMain } from './run-main';

/** `npm run scenarios` under tsx: the same as `ramp-sandbox scenarios` (logic in scenarios.command.ts). */
runMain(main);
