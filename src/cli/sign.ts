import { main } from './sign.command';
import { runMain } from './run-main';

/** `npm run sign` under tsx: the same as `ramp-sandbox sign` (logic in sign.command.ts). */
runMain(main);
