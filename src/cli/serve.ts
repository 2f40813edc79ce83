import { main } from './serve.command';
import { runMain } from './run-main';

/** `npm start` under tsx: the same as `ramp-sandbox serve` (logic in serve.command.ts). */
runMain(main);
