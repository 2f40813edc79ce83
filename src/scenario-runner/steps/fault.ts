import { expectReply, StepFailure } from '../script/failure';
import type { StepHandler } from './context';

/**
 * `fault`: POST /sandbox/faults with the step's fields (CONTRACT §12), scoped to the scenario's
 * partner unless it names a `client_id`, so runs sharing a sandbox stay apart; `as:` names the
 * fault (`${f.id}`). `{clear: true}` removes every fault the scenario injected, `{clear: f}` one.
 */
export const fault: StepHandler<'fault'> = async (step, ctx) => {
  const a = await ctx.resolve(step.args);
  if (!('clear' in a)) {
    const data = expectReply(step, await ctx.client.addFault({ ...a, client_id: a.client_id ?? ctx.partner.client_id }));
    if (data?.id) {
      ctx.faults.add(data.id);
      if (step.as) ctx.scope.set(step.as, data);
    }
    return;
  }
  const raw = (step.args as { clear: unknown }).clear;
  const named = typeof raw === 'string' && ctx.scope.has(raw) ? ctx.scope.get(raw) : a.clear;
  const ids = named === true ? [...ctx.faults] : [typeof named === 'string' ? named : (named as { id?: unknown })?.id];
  for (const id of ids) {
    if (typeof id !== 'string') throw new StepFailure(`cannot find a fault id in ${JSON.stringify(raw)}`);
    const res = await ctx.client.removeFault(id);
    if (res.ok || res.error.status !== 404) expectReply(step, res); // 404: already used up (times)
    ctx.faults.delete(id);
  }
};
