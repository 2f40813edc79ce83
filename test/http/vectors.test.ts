import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookSignatureVectors } from '../../src/webhooks';
import { startTestServer, type TestServer } from '../support/server';

// CONTRACT §18: GET /sandbox/webhooks/vectors serves the same cases as the committed file.
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ adminToken: 'vectors-token' });
});
afterAll(() => s?.close());

describe('GET /sandbox/webhooks/vectors (CONTRACT §18)', () => {
  it('answers the vectors the generator makes, in the success envelope (checked against OpenAPI)', async () => {
    expect(await s.controlApi.getWebhookVectors()).toEqual(webhookSignatureVectors());
  });

  it('is a control route: the admin token is needed when one is set', async () => {
    const res = await s.request('GET', '/sandbox/webhooks/vectors');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ status: false, code: 'E_UNAUTHORIZED' });
  });
});
