import autocannon from 'autocannon';
import { signRequest } from '../src/auth';
import { createSandbox } from '../src/main';
const demo = createSandbox({ logLevel: 'silent' }); const p = demo.demoPartner; demo.close();
const port = Number(process.argv[2]);
const creds = { clientId: p.client_id, secretKey: p.keys.test.secret_key, encryptionKey: p.keys.test.encryption_key };
const body = JSON.stringify({ from: { currency: 'NGN', amount: 50000 }, to: { currency: 'USDT', network: 'base-sepolia' }, recipient: { address: `0x${'5'.repeat(40)}` }, customer: { reference: 'b', name: 'Ada Obi', email: 'a@b.co' } });
const r = await autocannon({ url: `http://127.0.0.1:${port}/v1/orders`, method: 'POST', body, headers: signRequest({ method: 'POST', path: '/v1/orders', body, ...creds }), connections: 20, duration: 8 });
console.log('create', r.requests.average, r.non2xx);
