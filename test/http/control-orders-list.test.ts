import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder } from '../support/orders';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §15: the control API's order list, newest first, filtered by partner, environment,
// status and type (the store's `list`, decision 028).
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('GET /sandbox/orders', () => {
  it('lists every partner’s orders newest first, and keeps only those a filter names', async () => {
    const other = await s.createPartner({});
    const a = (await createOrder(s, 'onramp')).reference;
    const b = (await createOrder(s, 'offramp', {}, { as: other })).reference;
    const c = (await createOrder(s, 'onramp', { to: { currency: 'USDT', network: 'ethereum' } }, { as: other, env: 'live' })).reference;
    const d = (await createOrder(s, 'swap', {}, { as: other })).reference;
    await s.control('POST', `/sandbox/orders/${d}/payin`, {});
    const list = async (query: string) =>
      ((await s.control('GET', `/sandbox/orders?per_page=100${query}`)).body.data as Array<{ reference: string }>).map((o) => o.reference);
    expect(await list('')).toEqual([d, c, b, a]);
    expect(await list(`&client_id=${other.clientId}`)).toEqual([d, c, b]);
    expect(await list(`&client_id=${other.clientId}&environment=test`)).toEqual([d, b]);
    expect(await list('&environment=live')).toEqual([c]);
    expect(await list('&type=onramp')).toEqual([c, a]);
    expect(await list('&status=awaiting_user_payment')).toEqual([c, b, a]);
    expect(await list(`&client_id=${other.clientId}&type=swap&status=awaiting_user_payment`)).toEqual([]);
  });
});
