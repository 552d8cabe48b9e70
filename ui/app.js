// Dashboard of the model gateway: plain browser JavaScript, no build step, no CDN. The admin key
// is typed in and kept in sessionStorage (gone when the tab closes); every call goes to this
// origin's admin API with it.
const KEY = 'gateway-admin-key';
const DAYS = 30;
const COLORS = ['#2f6fde', '#e07a1f', '#2a9d8f', '#c2410c', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f'];
const SVG = 'http://www.w3.org/2000/svg';

const $ = (sel) => document.querySelector(sel);

function say(text, isError = false) {
  const m = $('#message');
  m.textContent = text;
  m.classList.toggle('error', isError);
}

async function api(path) {
  const res = await fetch(path, { headers: { authorization: `Bearer ${sessionStorage.getItem(KEY)}` } });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new Error(body.error?.message ?? `${res.status} ${res.statusText}`);
    err.status = res.status;
    throw err;
  }
  return body;
}

function cell(text, cls) {
  const td = document.createElement('td');
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function fillTable(sel, rows) {
  const body = $(`${sel} tbody`);
  body.replaceChildren(...rows.map((cells) => {
    const tr = document.createElement('tr');
    tr.append(...cells);
    return tr;
  }));
}

const usd = (n) => Number(n).toFixed(6);
const day = (d) => d.toISOString().slice(0, 10);

/** Stacked bars: one bar per day, one colour per group, drawn as SVG elements. */
function drawChart(rows, groups) {
  const days = [];
  const end = new Date();
  for (let i = DAYS - 1; i >= 0; i--) days.push(day(new Date(end.getTime() - i * 86_400_000)));
  const byDay = new Map(days.map((d) => [d, new Map()]));
  for (const r of rows) byDay.get(r.day)?.set(r.group ?? '(none)', r.cost_usd);
  const totals = days.map((d) => [...byDay.get(d).values()].reduce((a, b) => a + b, 0));
  const max = Math.max(...totals, 1e-9);
  const W = 900, H = 260, left = 64, bottom = 28, top = 10;
  const bw = (W - left - 10) / days.length;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('id', 'spend-chart');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', 'Spend per day in USD');
  const el = (name, attrs, text) => {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  for (let i = 0; i <= 4; i++) {
    const y = top + (H - top - bottom) * (1 - i / 4);
    el('line', { x1: left, x2: W - 10, y1: y, y2: y, class: 'axis' });
    el('text', { x: left - 6, y: y + 4, 'text-anchor': 'end' }, `$${(max * i / 4).toPrecision(2)}`);
  }
  days.forEach((d, i) => {
    let y = H - bottom;
    groups.forEach((g, gi) => {
      const v = byDay.get(d).get(g) ?? 0;
      if (v <= 0) return;
      const h = Math.max(1, (H - top - bottom) * v / max);
      y -= h;
      const rect = el('rect', { x: left + i * bw + 1, y, width: Math.max(1, bw - 2), height: h, fill: COLORS[gi % COLORS.length], class: 'bar' });
      const title = document.createElementNS(SVG, 'title');
      title.textContent = `${d} ${g}: $${usd(v)}`;
      rect.append(title);
    });
    if (i % 5 === 0 || i === days.length - 1) el('text', { x: left + i * bw + bw / 2, y: H - 8, 'text-anchor': 'middle' }, d.slice(5));
  });
  const legend = document.createElement('div');
  legend.className = 'legend';
  groups.forEach((g, gi) => {
    const s = document.createElement('span');
    s.textContent = g;
    s.style.setProperty('--swatch', COLORS[gi % COLORS.length]);
    legend.append(s);
  });
  $('#chart').replaceChildren(svg, legend);
}

async function loadSpend() {
  const by = $('#group-by').value;
  const from = day(new Date(Date.now() - (DAYS - 1) * 86_400_000));
  const to = day(new Date(Date.now() + 86_400_000));
  const [daily, total] = await Promise.all([
    api(`/v1/usage?from=${from}&to=${to}&group_by=${by}&interval=day`),
    api(`/v1/usage?from=${from}&to=${to}&group_by=${by}`),
  ]);
  const groups = total.data.map((r) => r.group ?? '(none)');
  drawChart(daily.data, groups);
  fillTable('#totals', total.data.map((r) => [cell(r.group ?? '(none)'), cell(r.requests, 'num'), cell(r.input_tokens, 'num'), cell(r.output_tokens, 'num'), cell(usd(r.cost_usd), 'num')]));
}

async function loadAll() {
  say('Loading...');
  const [status, recent] = await Promise.all([api('/admin/status'), api('/admin/requests?limit=25')]);
  fillTable('#providers', status.providers.map((p) => [cell(p.name), cell(p.type), cell(p.status === 'enabled' ? 'enabled' : `needs ${p.missing}`, p.status === 'enabled' ? 'ok' : 'bad'), cell(p.models, 'num')]));
  fillTable('#models', status.models.filter((m) => !m.hidden).map((m) => [cell(m.id), cell(m.provider), cell(m.status, m.status === 'available' ? 'ok' : 'bad')]));
  const l = status.ledger;
  $('#ledger-state').textContent = `Ledger: ${l.written + l.replayed} rows written, ${l.queued} queued${l.journalPending ? ', database unreachable: rows held in the journal' : ''}.`;
  fillTable('#requests', recent.data.map((r) => [
    cell(new Date(r.started_at).toLocaleString()), cell(r.key_name ?? r.key_id ?? ''), cell(r.model ?? ''),
    cell(r.status ?? '', r.status >= 400 ? 'bad' : 'ok'), cell(`${r.input_tokens}/${r.output_tokens}`, 'num'), cell(usd(r.cost_usd), 'num'), cell(r.latency_ms ?? '', 'num'),
  ]));
  await loadSpend();
  $('#dashboard').hidden = false;
  $('#logout').hidden = false;
  say(`Updated ${new Date().toLocaleTimeString()}.`);
}

function start() {
  $('#days').textContent = String(DAYS);
  $('#login').addEventListener('submit', (e) => {
    e.preventDefault();
    sessionStorage.setItem(KEY, $('#admin-key').value.trim());
    $('#admin-key').value = '';
    loadAll().catch(fail);
  });
  $('#logout').addEventListener('click', () => {
    sessionStorage.removeItem(KEY);
    $('#dashboard').hidden = true;
    $('#logout').hidden = true;
    say('Key forgotten.');
  });
  $('#group-by').addEventListener('change', () => loadSpend().catch(fail));
  if (sessionStorage.getItem(KEY)) loadAll().catch(fail);
  else say('Type an admin key to open the dashboard.');
}

function fail(e) {
  if (e.status === 401 || e.status === 403) sessionStorage.removeItem(KEY);
  $('#dashboard').hidden = true;
  say(e.message, true);
}

start();
