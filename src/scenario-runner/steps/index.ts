import type { StepKind } from '../script/schema';
import { advance } from './advance';
import { cancel } from './cancel';
import type { StepHandler } from './context';
import { deliver } from './deliver';
import { expect } from './expect';
import { expire } from './expire';
import { fault } from './fault';
import { find } from './find';
import { fulfil } from './fulfil';
import { order } from './order';
import { partner } from './partner';
import { payin } from './payin';
import { payout } from './payout';
import { quote } from './quote';
import { rates, webhookChaos } from './chaos';
import { simulate } from './simulate';

export { createStepContext, type StepContext, type StepHandler, type StepOf } from './context';

/** One handler per step kind: a kind without one does not typecheck. */
export const STEP_HANDLERS: { [K in StepKind]: StepHandler<K> } = {
  quote,
  order,
  expect,
  payin,
  fulfil,
  payout,
  cancel,
  advance,
  expire,
  simulate,
  deliver,
  partner,
  fault,
  rates,
  webhook_chaos: webhookChaos,
  find,
};
