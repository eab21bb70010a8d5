import { CSRF_HEADER } from './auth.js';

/** How often the page fetches the status again, ms. */
export const REFRESH_MS = 3_000;

/**
 * The status page: plain HTML, CSS and a small script, no build step and nothing fetched from elsewhere (it works
 * offline). The script reads /api/status, /api/intents, /api/series and /healthz every REFRESH_MS and draws the
 * chart as inline SVG. Everything from the keeper is inserted as text, never as markup.
 */
export function statusPage(o: { csrf: string; nonce: string; prefix: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="jk-csrf" content="${attr(o.csrf)}">
<link rel="icon" href="data:,">
<title>jup-keeper ${text(o.prefix)}</title>
<style>${CSS}</style>
</head>
<body>
<header id="top">
  <div class="brand">jup-keeper <span class="muted">${text(o.prefix)}</span></div>
  <div id="venue" data-testid="venue" class="venue">…</div>
  <div class="right"><span id="conn" class="muted">loading…</span></div>
</header>
<main>
  <section class="cards">
    <div class="card"><h2>Wallet</h2><div id="wallet-address" class="mono small">…</div><div id="wallet-value" data-testid="wallet-value" class="big">…</div><div id="wallet-change" class="small muted"></div><div id="balances" class="small"></div></div>
    <div class="card" id="ks-card"><h2>Kill switch</h2><div id="ks-state" data-testid="kill-switch-state" class="big">…</div><div id="ks-detail" class="small"></div>
      <button id="ks-button" data-testid="kill-switch-button" type="button" disabled>…</button><div id="ks-error" class="error small"></div></div>
    <div class="card"><h2>P&amp;L <span id="pnl-scope" data-testid="pnl-scope" class="muted"></span></h2><div id="pnl-total" class="big">…</div><div id="pnl-detail" class="small"></div></div>
    <div class="card"><h2>Keeper</h2><div id="keeper" class="small"></div></div>
  </section>
  <section class="card wide"><h2>Wallet value and P&amp;L over time</h2><div id="chart" data-testid="chart"></div></section>
  <section class="card wide"><h2>Strategies</h2><table id="strategies" data-testid="strategies"><thead><tr><th>ID</th><th>Strategy</th><th>Schedule</th><th>Evaluated</th><th>Next run</th><th>Outcome</th><th>Intents</th><th>Message</th><th class="num">Realised (session)</th><th class="num">Fills (session)</th></tr></thead><tbody></tbody></table></section>
  <section class="card wide"><h2>Open orders and positions</h2><table id="orders" data-testid="orders"><thead><tr><th>Type</th><th>Account</th><th>Details</th></tr></thead><tbody></tbody></table></section>
  <section class="card wide"><h2>Latest intents: intent → job → transaction → fill or claim</h2><table id="intents" data-testid="intents"><thead><tr><th>When</th><th>Intent</th><th>What</th><th>State</th><th>Job</th><th>Transaction</th><th>Outcome</th></tr></thead><tbody></tbody></table></section>
  <section class="card wide"><h2>Refusals</h2><table id="refusals"><thead><tr><th>When</th><th>Intent</th><th>Strategy</th><th>Rule</th><th>Reason</th></tr></thead><tbody></tbody></table></section>
  <footer class="small muted">Queues: <a href="/queues">Bull Board (read-only)</a> · <a href="/metrics">/metrics</a> · <a href="/api/status">/api/status</a> · <a href="/healthz">/healthz</a> · refreshes every ${REFRESH_MS / 1000} s</footer>
</main>
<script nonce="${attr(o.nonce)}">${script()}</script>
</body>
</html>
`;
}

const CSS = `
:root{--bg:#0f1419;--card:#182029;--line:#2a3440;--fg:#e6edf3;--muted:#8b98a5;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--paper:#2f81f7;--live:#f85149}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body.live{border-top:6px solid var(--live)}body.paper{border-top:6px solid var(--paper)}
header{display:flex;align-items:center;gap:16px;padding:12px 20px;border-bottom:1px solid var(--line);position:sticky;top:0;background:var(--bg);z-index:1}
.brand{font-weight:700;font-size:18px}.right{margin-left:auto}
.venue{font-weight:800;letter-spacing:.04em;padding:4px 12px;border-radius:6px;font-size:15px}
.venue.paper{background:var(--paper);color:#fff}.venue.live{background:var(--live);color:#fff;animation:pulse 2s infinite}
@keyframes pulse{50%{opacity:.75}}
main{padding:16px 20px;display:flex;flex-direction:column;gap:16px;max-width:1500px;margin:0 auto}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:16px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 16px;overflow-x:auto}
h2{font-size:13px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:0 0 8px}
.big{font-size:24px;font-weight:700}.small{font-size:12.5px}.muted{color:var(--muted)}.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere}
.error{color:var(--bad)}.ok{color:var(--ok)}.bad{color:var(--bad)}.warn{color:var(--warn)}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;font-size:12px}td.num,th.num{text-align:right}
.pill{display:inline-block;padding:1px 7px;border-radius:10px;font-size:11.5px;font-weight:600;background:#2a3440}
.pill.landed,.pill.completed,.pill.ok,.pill.placed,.pill.open,.pill.filled{background:#1f4d2c;color:#7ee2a0}.pill.failed,.pill.rejected,.pill.expired,.pill.error{background:#5c1f1f;color:#ffa198}
.pill.submitted,.pill.signed,.pill.active,.pill.built,.pill.guarded,.pill.planned,.pill.waiting,.pill.delayed{background:#4d3b10;color:#f2cc60}
button{margin-top:10px;font:inherit;font-weight:700;padding:8px 14px;border-radius:8px;border:0;cursor:pointer}
button.engage{background:var(--bad);color:#fff}button.release{background:var(--ok);color:#06250f}button:disabled{opacity:.5;cursor:default}
#chart svg{width:100%;height:220px;display:block}.axis{stroke:var(--line)}.lbl{fill:var(--muted);font-size:11px}
.line-value{fill:none;stroke:var(--paper);stroke-width:2}.line-pnl{fill:none;stroke:var(--ok);stroke-width:2}
.legend{font-size:12px;color:var(--muted)}.legend b.v{color:var(--paper)}.legend b.p{color:var(--ok)}
a{color:#58a6ff}footer{padding:4px 2px}
`;

function script(): string {
  return `
'use strict';
const csrf = document.querySelector('meta[name="jk-csrf"]').content;
const $ = (id) => document.getElementById(id);
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const usd = (n) => (n === null || n === undefined || !isFinite(n) ? '—' : (n <= -0.005 ? '-$' : '$') + Math.abs(n).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
const SOL_MINT = 'So11111111111111111111111111111111111111112';
let tokens = new Map([[SOL_MINT, { symbol: 'SOL', decimals: 9 }]]);
const amount = (mint, base) => { const t = tokens.get(mint); return t ? (Number(base) / 10 ** t.decimals).toLocaleString('en-US', { maximumFractionDigits: 6 }) + ' ' + t.symbol : base + ' (base units of ' + short(mint) + ')'; };
// A share token (a lend deposit's jlTokens): what it is worth in its asset at the exchange price the chain holds.
const worth = (t) => (t.worth ? ' <span class="muted" data-testid="share-worth">(' + esc(t.worth.ui) + ' ' + esc(t.worth.assetSymbol || short(t.worth.asset)) + (t.worth.usd != null ? ', ' + usd(t.worth.usd) : '') + ')</span>' : '');
const short = (s) => (s && s.length > 14 ? s.slice(0, 6) + '…' + s.slice(-6) : s || '');
function ago(at, now) { if (!at) return 'never'; const s = Math.max(0, Math.round((now - at) / 1000)); if (s < 90) return s + ' s ago'; const m = Math.round(s / 60); if (m < 90) return m + ' min ago'; const h = Math.round(m / 60); return h < 48 ? h + ' h ago' : Math.round(h / 24) + ' d ago'; }
function every(sch) { if ('every' in sch) { const s = sch.every / 1000; return 'every ' + (s % 3600 === 0 ? s / 3600 + ' h' : s % 60 === 0 ? s / 60 + ' min' : s + ' s'); } return 'cron ' + sch.cron + (sch.tz ? ' ' + sch.tz : ''); }
const pill = (s) => '<span class="pill ' + esc(s) + '">' + esc(s) + '</span>';
async function get(path) { const r = await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' } }); if (!r.ok && r.status !== 503) throw new Error(path + ': HTTP ' + r.status); return r.json(); }
let state = null;

function renderTop(st, health, points) {
  const paper = st.venue?.kind !== 'live';
  document.body.className = paper ? 'paper' : 'live';
  const v = $('venue');
  v.className = 'venue ' + (paper ? 'paper' : 'live');
  v.textContent = paper ? 'PAPER · simulator' : 'LIVE · real money';
  v.title = st.venue?.url || '';
  $('wallet-address').textContent = st.wallet?.address || 'unknown';
  const last = points.length > 0 ? points[points.length - 1] : null;
  const wv = st.walletValue;
  $('wallet-value').textContent = wv?.nowUsd != null ? usd(wv.nowUsd) : last ? usd(last.valueUsd) : '—';
  $('wallet-change').textContent = wv?.startUsd != null && wv?.changeUsd != null ? (wv.changeUsd > -0.005 ? '+' : '') + usd(wv.changeUsd) + ' since the start (' + usd(wv.startUsd) + ')' : '';
  const b = st.balances;
  if (b) for (const t of b.tokens) tokens.set(t.mint, { symbol: t.symbol || short(t.mint), decimals: t.decimals });
  $('balances').innerHTML = b ? ['<b>' + esc(b.sol.ui) + '</b> SOL'].concat(b.tokens.map((t) => '<b>' + esc(t.ui) + '</b> ' + esc(t.symbol || short(t.mint)) + worth(t))).join(' · ') + ' <span class="muted">(' + ago(b.at, st.at) + ')</span>' : '<span class="muted">no wallet reading yet</span>';
  const ks = st.killSwitch;
  $('ks-state').innerHTML = ks.engaged ? '<span class="bad">ENGAGED</span> <span class="small">(' + esc(ks.mode) + ')</span>' : '<span class="ok">off</span> <span class="small muted">trading</span>';
  $('ks-detail').textContent = ks.engaged ? 'by ' + (ks.by || '?') + (ks.at ? ', ' + ago(ks.at, st.at) : '') + ': ' + (ks.reason || '') : 'Engaging it stops every new build and signature within one job (halt).';
  const btn = $('ks-button');
  btn.disabled = false;
  btn.dataset.engaged = ks.engaged ? 'true' : 'false';
  btn.className = ks.engaged ? 'release' : 'engage';
  btn.textContent = ks.engaged ? 'Release kill switch' : 'Engage kill switch (halt)';
  const t = st.pnl.total;
  $('pnl-total').innerHTML = '<span class="' + (t.realizedUsd <= -0.005 ? 'bad' : 'ok') + '">' + usd(t.realizedUsd) + '</span> <span class="small muted">realised</span>';
  const unrealized = st.unrealizedPnl?.totalUsd;
  const all = st.pnl.allSessions;
  $('pnl-scope').textContent = st.session ? '· session ' + st.session.id : '';
  $('pnl-detail').textContent = (unrealized != null ? 'unrealised ' + usd(unrealized) + '; ' : '') + usd(t.volumeUsd) + ' traded in ' + t.fills + ' fill(s)' + (st.session ? ' this session' : '') + (all ? '; every session: ' + usd(all.realizedUsd) + ' realised' : '');
  const by = Object.entries(st.intents.byState).filter(([, n]) => n > 0).map(([s, n]) => n + ' ' + s).join(', ');
  $('keeper').innerHTML = [
    'health: ' + (health.healthy ? '<span class="ok">workers beating</span>' : '<span class="bad">' + esc(health.problem || 'unhealthy') + '</span>'),
    keeperLine(st),
    st.session ? 'session ' + st.session.id + ' (this run): ' + st.trades.session + ' trade(s)' + (st.trades.claims ? ' (' + st.trades.claims + ' claim(s))' : '') + ', ' + st.intents.session + ' intent(s)' : 'session: none recorded',
    'intents, every session: ' + st.intents.total + (by ? ' (' + esc(by) + ')' : ''),
    'snapshots: ' + ['market', 'wallet', 'prediction'].map((n) => n + ' ' + ago(st.snapshots[n]?.at, st.at)).join(', '),
    'today (UTC day): ' + usd(st.risk.notionalTodayUsd) + ' traded',
  ].filter((l) => l).map((l) => '<div>' + l + '</div>').join('');
}

// One line: running since when (its oldest live process's start), or stopped when; the start only without heartbeats.
function keeperLine(st) {
  const h = st.heartbeat;
  const when = (at) => new Date(at).toLocaleTimeString() + ' (' + ago(at, st.at) + ')';
  if (h && h.alive) return 'keeper: <span class="ok">running</span>' + (h.since ? ' since ' + when(h.since) : '');
  if (h && h.since) return 'keeper: <span class="bad">stopped</span> ' + when(h.since);
  return 'keeper: ' + (st.keeper.startedAt ? 'started ' + when(st.keeper.startedAt) : 'unknown');
}

function renderStrategies(st) {
  const pnl = new Map(st.pnl.strategies.map((p) => [p.id, p]));
  $('strategies').tBodies[0].innerHTML = st.strategies.map((s) => {
    const d = s.lastDecision;
    const p = pnl.get(s.id) || s.pnl;
    const intents = d && d.intents.length > 0 ? d.intents.map((i) => esc(i.kind) + ' ' + pill(i.state)).join('<br>') : '<span class="muted">-</span>';
    const evaluated = s.lastEvaluation ? ago(s.lastEvaluation.at, st.at) : 'never';
    // The outcome is the last decision that changed: an instance deciding the same every window keeps its first.
    const outcome = d ? pill(d.outcome) + ' <span class="small muted">since ' + ago(d.at, st.at) + '</span>' : '-';
    const m = strategyMessage(s);
    return '<tr data-strategy="' + esc(s.id) + '"><td class="mono">' + esc(s.id) + '</td><td>' + esc(s.strategy) + (s.version ? '<span class="muted">@' + esc(s.version) + '</span>' : '') + '</td><td>' + esc(every(s.schedule)) + '</td><td class="evaluated">' + evaluated + '</td><td>' + (s.nextRunAt ? ago(st.at, s.nextRunAt).replace(' ago', '').replace(/^/, 'in ') : '-') + '</td><td class="outcome">' + outcome + '</td><td>' + intents + '</td><td class="small message"' + (m.title ? ' title="' + esc(m.title) + '"' : '') + '>' + esc(m.text) + '</td><td class="num">' + usd(p.realizedUsd) + '</td><td class="num">' + p.fills + '</td></tr>';
  }).join('') || '<tr><td colspan="10" class="muted">no strategy</td></tr>';
}

// Why it did not decide (a skip's or a failure's reason), else the last line it logged, else its last intent's reason.
function strategyMessage(s) {
  const d = s.lastDecision;
  if (d && d.message && (d.outcome === 'skipped' || d.outcome === 'error')) return { text: d.message };
  if (s.lastMessage) return { text: s.lastMessage.text, title: s.lastMessage.level + ', first logged ' + new Date(s.lastMessage.at).toLocaleTimeString() };
  return { text: d?.message || d?.intents.find((i) => i.reason)?.reason || '' };
}

function renderOrders(st) {
  const rows = [];
  for (const o of st.orders?.trigger || []) rows.push(['limit order', o.order, 'sell ' + amount(o.inputMint, o.makingAmount) + ' for ' + amount(o.outputMint, o.takingAmount) + '; ' + amount(o.inputMint, o.remainingMakingAmount) + ' left']);
  for (const o of st.orders?.recurring || []) rows.push(['recurring', o.order, amount(o.inputMint, o.inUsed) + ' of ' + amount(o.inputMint, o.inDeposited) + ' used, ' + amount(o.outputMint, o.outReceived) + ' received']);
  for (const p of st.positions?.lend || []) rows.push(['lend', p.asset, amount(p.asset, p.underlyingAssets) + ' (' + p.shares + ' shares)']);
  for (const p of st.positions?.prediction || []) rows.push(['prediction', p.marketId, (Number(p.contractsMicro) / 1e6) + ' ' + (p.isYes ? 'YES' : 'NO') + (p.claimable && !p.claimed ? ', claimable' : '') + (p.claimed ? ', claimed' : '')]);
  $('orders').tBodies[0].innerHTML = rows.map((r) => '<tr><td>' + esc(r[0]) + '</td><td class="mono" title="' + esc(r[1]) + '">' + esc(short(r[1])) + '</td><td>' + esc(r[2]) + '</td></tr>').join('') || '<tr><td colspan="3" class="muted">none open</td></tr>';
}

function outcome(o) {
  if (!o) return '<span class="muted">…</span>';
  if (o.kind === 'fill') return '<span class="ok">fill</span> ' + esc(o.in) + ' → ' + esc(o.out) + (o.priceUsd ? ' <span class="muted">@ ' + usd(o.priceUsd) + '</span>' : '');
  if (o.kind === 'claim') return '<span class="ok">claim</span> ' + (o.payoutUsd ? '$' + esc(o.payoutUsd) : '');
  if (o.kind === 'order') return esc(o.product) + ' order ' + (o.order ? '<span class="mono" title="' + esc(o.order) + '">' + esc(short(o.order)) + '</span> ' : '') + pill(o.status || 'unknown');
  if (o.kind === 'failure') return '<span class="bad">' + esc(o.code) + (o.rule ? ' (' + esc(o.rule) + ')' : '') + '</span> ' + esc(o.message);
  return 'landed';
}

function renderIntents(list, now) {
  $('intents').tBodies[0].innerHTML = list.map((i) => {
    const job = i.job ? pill(i.job.state) + ' <span class="muted small">' + i.job.attemptsMade + ' run(s)</span>' + (i.job.failedReason ? '<div class="small bad">' + esc(i.job.failedReason) + '</div>' : '') : '<span class="muted">-</span>';
    const tx = i.signatures.length > 0 ? i.signatures.map((s) => '<span class="mono" title="' + esc(s) + '">' + esc(short(s)) + '</span>').join('<br>') : '<span class="muted">-</span>';
    return '<tr data-intent="' + esc(i.id) + '" data-state="' + esc(i.state) + '"><td>' + ago(i.createdAt, now) + '</td><td><span class="mono" title="' + esc(i.id) + '">' + esc(short(i.id)) + '</span><div class="small muted">' + esc(i.strategy) + '</div></td><td>' + esc(i.what) + (i.reason ? '<div class="small muted">' + esc(i.reason) + '</div>' : '') + '</td><td>' + pill(i.state) + '</td><td class="job">' + job + '</td><td class="tx">' + tx + '</td><td class="outcome">' + outcome(i.outcome) + '</td></tr>';
  }).join('') || '<tr><td colspan="7" class="muted">no intent yet</td></tr>';
}

function renderRefusals(st) {
  $('refusals').tBodies[0].innerHTML = st.refusals.map((r) => '<tr><td>' + ago(r.at, st.at) + '</td><td class="mono">' + esc(short(r.id)) + '</td><td>' + esc(r.strategy) + '</td><td>' + esc(r.rule) + '</td><td>' + esc(r.reason) + '</td></tr>').join('') || '<tr><td colspan="5" class="muted">nothing refused</td></tr>';
}

function renderChart(points) {
  const el = $('chart');
  if (points.length === 0) { el.innerHTML = '<p class="muted">no wallet reading recorded yet</p>'; return; }
  const W = 1000, H = 220, L = 70, R = 70, T = 12, B = 26;
  const t0 = points[0].at, t1 = Math.max(points[points.length - 1].at, t0 + 1);
  // At least 0.1 % of the values' size (and 5 cents): noise in the last decimals is not drawn as a cliff.
  const span = (vals) => { let lo = Math.min(...vals), hi = Math.max(...vals); const min = Math.max(0.05, Math.max(Math.abs(lo), Math.abs(hi)) * 0.001); if (hi - lo < min) { const mid = (hi + lo) / 2; lo = mid - min / 2; hi = mid + min / 2; } const pad = (hi - lo) * 0.08; return [lo - pad, hi + pad]; };
  const [v0, v1] = span(points.map((p) => p.valueUsd));
  const [p0, p1] = span(points.map((p) => p.pnlUsd));
  const x = (t) => L + ((t - t0) / (t1 - t0)) * (W - L - R);
  const y = (v, lo, hi) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  const path = (f, lo, hi) => points.map((p, i) => (i === 0 ? 'M' : 'L') + x(p.at).toFixed(1) + ' ' + y(f(p), lo, hi).toFixed(1)).join(' ');
  const time = (t) => new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const one = points.length === 1 ? '<circle cx="' + x(t0) + '" cy="' + y(points[0].valueUsd, v0, v1) + '" r="4" fill="#2f81f7"/>' : '';
  el.innerHTML = '<div class="legend"><b class="v">━ wallet value</b> (left, ' + usd(points[points.length - 1].valueUsd) + ') &nbsp; <b class="p">━ realised P&amp;L, every session</b> (right, ' + usd(points[points.length - 1].pnlUsd) + ') · ' + points.length + ' point(s)</div>' +
    '<svg viewBox="0 0 ' + W + ' ' + H + '" preserveAspectRatio="none" role="img" aria-label="wallet value and P&L over time">' +
    '<line class="axis" x1="' + L + '" y1="' + (H - B) + '" x2="' + (W - R) + '" y2="' + (H - B) + '"/><line class="axis" x1="' + L + '" y1="' + T + '" x2="' + L + '" y2="' + (H - B) + '"/><line class="axis" x1="' + (W - R) + '" y1="' + T + '" x2="' + (W - R) + '" y2="' + (H - B) + '"/>' +
    '<text class="lbl" x="' + (L - 6) + '" y="' + (T + 10) + '" text-anchor="end">' + usd(v1) + '</text><text class="lbl" x="' + (L - 6) + '" y="' + (H - B) + '" text-anchor="end">' + usd(v0) + '</text>' +
    '<text class="lbl" x="' + (W - R + 6) + '" y="' + (T + 10) + '">' + usd(p1) + '</text><text class="lbl" x="' + (W - R + 6) + '" y="' + (H - B) + '">' + usd(p0) + '</text>' +
    '<text class="lbl" x="' + L + '" y="' + (H - 6) + '">' + time(t0) + '</text><text class="lbl" x="' + (W - R) + '" y="' + (H - 6) + '" text-anchor="end">' + time(t1) + '</text>' +
    '<path class="line-pnl" data-testid="chart-pnl" d="' + path((p) => p.pnlUsd, p0, p1) + '"/><path class="line-value" data-testid="chart-value" d="' + path((p) => p.valueUsd, v0, v1) + '"/>' + one + '</svg>';
}

async function refresh() {
  try {
    const [st, intents, points, health] = await Promise.all([get('/api/status'), get('/api/intents'), get('/api/series'), get('/healthz')]);
    state = st;
    renderTop(st, health, points);
    renderStrategies(st);
    renderOrders(st);
    renderIntents(intents, st.at);
    renderRefusals(st);
    renderChart(points);
    $('conn').textContent = 'updated ' + new Date(st.at).toLocaleTimeString();
    $('conn').className = 'muted';
  } catch (err) {
    $('conn').textContent = 'cannot reach the keeper: ' + err.message;
    $('conn').className = 'bad';
  }
}

$('ks-button').addEventListener('click', async () => {
  const btn = $('ks-button');
  const engage = btn.dataset.engaged !== 'true';
  if (!engage && !confirm('Release the kill switch? The keeper resumes trading.')) return;
  btn.disabled = true;
  $('ks-error').textContent = '';
  try {
    const r = await fetch('/api/kill-switch', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', '${CSRF_HEADER}': csrf }, body: JSON.stringify({ engaged: engage }) });
    if (!r.ok) throw new Error((await r.json().catch(() => ({}))).error || 'HTTP ' + r.status);
  } catch (err) {
    $('ks-error').textContent = 'kill switch: ' + err.message;
  }
  await refresh();
});

// The next refresh is planned when this one ends (never two at once), later when the keeper is slow to answer.
async function loop() {
  const started = Date.now();
  await refresh();
  setTimeout(loop, Math.max(${REFRESH_MS}, 2 * (Date.now() - started)));
}
loop();
`;
}

function text(v: string): string {
  return v.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}

function attr(v: string): string {
  return text(v).replace(/"/g, '&quot;');
}
