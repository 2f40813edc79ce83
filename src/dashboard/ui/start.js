// "Get started" (issue 20): what a first visit needs to call the API: the base URL, the demo
// partner's client id and test keys (revealed on demand), a signed curl with a fresh timestamp,
// the documents, and the webhook URL when the demo partner has none.
import { useState } from 'preact/hooks';
import { get, patch } from './api.js';
import { bootstrap } from './meta.js';
import { Copyable, CopyButton, ErrorBox, html, Section, useAction, useResource } from './ui.js';
/** @import { FieldEvent, Resource } from './ui.js' */
/** @import { KeySet, Partner, PartnerBody, PartnerKeys } from './types' */

/** The request the curl makes: a secret-key (signed) read any partner may make. */
const CURL_PATH = '/v1/orders';

/**
 * A shell word: single-quoted, a quote inside written `'\''` (as `npm run sign` does).
 * @param {string} s
 */
const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * hex HMAC-SHA256 of `text` keyed with `key` (Web Crypto: the page must be a secure context,
 * which localhost and 127.0.0.1 are).
 * @param {string} key
 * @param {string} text
 */
async function hmacHex(key, text) {
  if (!crypto.subtle)
    throw new Error(
      'This page cannot sign here (Web Crypto needs a secure context): open the dashboard at http://localhost or 127.0.0.1, or run npm run sign',
    );
  const enc = new TextEncoder();
  const k = await crypto.subtle.importKey('raw', enc.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const sig = new Uint8Array(await crypto.subtle.sign('HMAC', k, enc.encode(text)));
  return Array.from(sig, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * A curl of GET /v1/orders signed now (spec §5.2: `clientId|timestamp|METHOD|path|body`, keyed
 * with the encryption key), quoted so that it can be pasted into a shell as it is.
 * @param {string} clientId
 * @param {KeySet} keys
 */
export async function signedCurl(clientId, keys) {
  const timestamp = String(Date.now());
  const signature = await hmacHex(keys.encryption_key, [clientId, timestamp, 'GET', CURL_PATH, ''].join('|'));
  const headers = {
    'svc-client-id': clientId,
    authorization: `Bearer ${keys.secret_key}`,
    'svc-timestamp': timestamp,
    'svc-signature': `sha256=${signature}`,
  };
  const parts = [`curl -sS -i -X GET ${quote(location.origin + CURL_PATH)}`];
  for (const [k, v] of Object.entries(headers)) parts.push(`-H ${quote(`${k}: ${v}`)}`);
  return parts.join(' \\\n  ');
}

/** The Get started panel; `onClose` when it can be put away (there are orders). @param {{ onClose?: () => void }} props */
export function GetStarted({ onClose }) {
  const clientId = bootstrap.demo_client_id;
  /** @type {Resource<Partner>} */
  const partner = useResource(`/sandbox/partners/${encodeURIComponent(clientId)}`, ['reconnect']);
  const [keys, setKeys] = useState(/** @type {KeySet | undefined} */ (undefined));
  const [curl, setCurl] = useState(/** @type {string | undefined} */ (undefined));
  const reveal = useAction();
  const sign = useAction();
  const base = location.origin;

  const showKeys = () =>
    reveal.run('Test keys shown', async () => {
      /** @type {PartnerKeys} */
      const all = await get(`/sandbox/partners/${encodeURIComponent(clientId)}/keys`);
      setKeys(all.keys.test);
      return all;
    });
  /** @param {KeySet} set */
  const makeCurl = (set) =>
    sign.run('Signed curl made with a fresh timestamp', async () => {
      const text = await signedCurl(clientId, set);
      setCurl(text);
      return text;
    });
  const copyCurl = async () => {
    const set = keys ?? (await showKeys())?.keys.test;
    if (set) await makeCurl(set);
  };

  return html`<${Section} title="Get started" id="get-started" actions=${onClose ? html`<button type="button" class="small" onClick=${onClose}>Hide</button>` : null}>
    <p class="lead">Call the sandbox as the demo partner: every request below goes to this sandbox, nothing leaves the machine.</p>
    <dl class="kv start">
      <dt>Base URL</dt><dd><${Copyable} value=${base} label="the base URL" /></dd>
      <dt>Client id <span class="muted small">(svc-client-id)</span></dt><dd><${Copyable} value=${clientId} label="the demo client id" /></dd>
      <dt>Test keys</dt>
      <dd>${
        keys
          ? html`<div class="keylist" data-testid="demo-keys">${Object.entries(keys).map(([k, v]) => html`<div><span class="muted small">${k}</span> <${Copyable} value=${v} label=${`the test ${k.replace('_', ' ')}`} /></div>`)}
            <button type="button" class="small" onClick=${() => setKeys(undefined)}>Hide keys</button></div>`
          : html`<button type="button" class="small" data-action="reveal-keys" disabled=${reveal.busy} onClick=${showKeys}>Reveal the test keys</button>`
      }</dd>
    </dl>
    <${ErrorBox} error=${reveal.error} />
    <h3>A signed request</h3>
    <p class="small">A curl of <code>GET ${CURL_PATH}</code>, signed now (the timestamp is good for 5 minutes): paste it into a shell.</p>
    <div class="curl">
      <button type="button" class="primary" data-action="make-curl" disabled=${sign.busy || reveal.busy} onClick=${copyCurl}>${curl ? 'Sign again (fresh timestamp)' : 'Make a signed curl'}</button>
      ${curl ? html`<${CopyButton} text=${curl} label="the signed curl" />` : null}
    </div>
    ${curl ? html`<pre class="json curl-text" data-testid="curl" tabindex="0" aria-label="Signed curl">${curl}</pre>` : null}
    <${ErrorBox} error=${sign.error} />
    <h3>Read more</h3>
    <ul class="links">
      <li><a href="/openapi.json">/openapi.json</a>: every route, request and answer (OpenAPI 3.1)</li>
      <li><a href="/sandbox/dashboard/assets/README.md">README</a>: the two commands, the common tasks, what it does not simulate</li>
    </ul>
    ${partner.data && !partner.data.webhook_url ? html`<${WebhookUrl} partner=${partner.data} onSaved=${() => partner.reload()} />` : null}
    ${partner.data?.webhook_url ? html`<p class="small">Webhooks go to <code class="break">${partner.data.webhook_url}</code> (Partners to change it).</p>` : null}
  </${Section}>`;
}

/** @param {{ partner: Partner, onSaved: () => void }} props */
function WebhookUrl({ partner, onSaved }) {
  const [url, setUrl] = useState('');
  const action = useAction();
  /** @param {Event} e */
  const save = (e) => {
    e.preventDefault();
    /** @type {PartnerBody} */
    const body = { webhook_url: url.trim() };
    action.run('Webhook URL saved', async () => {
      const saved = await patch(`/sandbox/partners/${encodeURIComponent(partner.client_id)}`, body);
      onSaved();
      return saved;
    });
  };
  return html`<form class="webhook-url" onSubmit=${save}>
    <h3>Webhook URL</h3>
    <p class="small">The demo partner has no webhook URL, so no webhook is delivered yet. Give the URL your receiver listens on:</p>
    <div class="inline-field">
      <label class="field grow"><span>Webhook URL of ${partner.name}</span>
        <input name="start_webhook_url" type="url" required placeholder="http://127.0.0.1:8080/hooks" value=${url} onInput=${(/** @type {FieldEvent} */ e) => setUrl(e.currentTarget.value)} /></label>
      <button type="submit" class="primary" disabled=${action.busy}>Save</button>
    </div>
    <${ErrorBox} error=${action.error} />
  </form>`;
}
