// The dashboard (CONTRACT §15): asks for the admin token when the sandbox has one, then shows
// the clock and one screen at a time, chosen by the URL hash (#/orders, #/orders/REF, …).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, onLiveState, onUnauthorized, post, startLive, stopLive, token } from './api.js';
import { ClockBar } from './clock.js';
import { DeliveriesScreen } from './deliveries.js';
import { InspectorScreen } from './inspector.js';
import { OrderScreen } from './order-detail.js';
import { OrdersScreen } from './orders.js';
import { PartnersScreen } from './partners.js';
import { ErrorBox, html, useAction } from './ui.js';
/** @import { FieldEvent, Html } from './ui.js' */
/** @import { LiveState } from './types' */

const SCREENS = [
  ['orders', 'Orders'],
  ['deliveries', 'Webhook deliveries'],
  ['requests', 'Requests & faults'],
  ['partners', 'Partners'],
];

function useRoute() {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/**
 * Asks for the admin token; keeps it for this tab only (sessionStorage).
 * @param {{ onDone: () => void, failed: boolean }} props
 */
function TokenForm({ onDone, failed }) {
  const [value, setValue] = useState('');
  return html`<div class="token-gate">
    <form class="panel token-form" onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      token.set(value.trim());
      onDone();
    }}>
      <h1>ramp-sandbox</h1>
      <p>This sandbox has an admin token (<code>--admin-token</code>). Enter it to use the dashboard; it is kept for this browser tab only and sent as <code>Authorization: Bearer …</code>.</p>
      ${failed ? html`<div class="error" role="alert">That token was not accepted.</div>` : null}
      <label class="field wide"><span>Admin token</span>
        <input name="admin-token" type="password" autocomplete="current-password" autofocus value=${value} onInput=${(/** @type {FieldEvent} */ e) => setValue(e.currentTarget.value)} />
      </label>
      <button class="primary" type="submit" disabled=${!value.trim()}>Open the dashboard</button>
    </form>
  </div>`;
}

function LiveDot() {
  const [state, setState] = useState(/** @type {LiveState} */ ('connecting'));
  useEffect(() => onLiveState(setState), []);
  return html`<span class=${`live live-${state}`} data-testid="live" title="Updates from GET /sandbox/events">${state === 'live' ? 'live' : state}</span>`;
}

function Reset() {
  const action = useAction();
  return html`<span>
    <button class="small danger" disabled=${action.busy} onClick=${() => {
      if (confirm('Drop every order, delivery, request, fault and partner but the demo partner, and put the clock back at its start?')) {
        action.run('reset', () => post('/sandbox/reset'));
      }
    }}>Reset sandbox</button>
    <${ErrorBox} error=${action.error} />
  </span>`;
}

function Dashboard() {
  const [screen = 'orders', id] = useRoute();
  const current = screen === '' ? 'orders' : screen;
  /** @type {Html} */
  let body;
  if (current === 'orders' && id) body = html`<${OrderScreen} reference=${id} />`;
  else if (current === 'deliveries') body = html`<${DeliveriesScreen} />`;
  else if (current === 'requests') body = html`<${InspectorScreen} />`;
  else if (current === 'partners') body = html`<${PartnersScreen} />`;
  else body = html`<${OrdersScreen} />`;
  return html`<div class="layout">
    <header class="topbar">
      <a class="brand" href="#/orders">ramp-sandbox</a>
      <nav>${SCREENS.map(([key, label]) => html`<a href=${`#/${key}`} class=${current === key ? 'active' : ''}>${label}</a>`)}</nav>
      <div class="topbar-right"><${LiveDot} /><${Reset} /></div>
    </header>
    <${ClockBar} />
    <main>${body}</main>
  </div>`;
}

function App() {
  const [phase, setPhase] = useState(/** @type {'checking' | 'ready' | 'token' | 'down'} */ ('checking'));
  const [failed, setFailed] = useState(false);
  const check = async () => {
    try {
      await call('GET', '/sandbox/clock');
      setPhase('ready');
      startLive();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        setFailed(Boolean(token.get()));
        token.clear();
        setPhase('token');
      } else {
        setPhase('down');
      }
    }
  };
  useEffect(() => {
    check();
    return onUnauthorized(() => {
      stopLive();
      setFailed(true);
      token.clear();
      setPhase('token');
    });
  }, []);
  if (phase === 'checking') return html`<p class="loading">Connecting to the sandbox…</p>`;
  if (phase === 'token') return html`<${TokenForm} failed=${failed} onDone=${check} />`;
  if (phase === 'down') return html`<div class="token-gate"><div class="panel"><p>The sandbox did not answer.</p><button onClick=${check}>Try again</button></div></div>`;
  return html`<${Dashboard} />`;
}

const root = document.getElementById('app');
if (!root) throw new Error('The dashboard page has no #app element');
render(html`<${App} />`, root);
