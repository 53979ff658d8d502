// Shared by every console page: DOM building (no innerHTML: every value is text), the JSON API
// with the session's CSRF token, formatting, tables and the header.
'use strict';
(function () {
  const S = {};
  window.Sluice = S;
  S.session = null;

  // el('td', {class: 'num', onclick: fn}, child, 'text', [child, [child]], ...): arrays of children,
  // nested to any depth, are flattened; null, undefined and false are skipped.
  S.el = function (tag, attrs, ...children) {
    const svg = ['svg', 'g', 'path', 'line', 'rect', 'text', 'polyline', 'circle', 'title'].includes(tag);
    const node = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
      else if (name === 'text') node.textContent = value;
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  };
  const el = S.el;

  S.api = async function (path, options = {}) {
    const init = { method: options.method || 'GET', headers: { Accept: 'application/json' }, credentials: 'same-origin' };
    if (options.body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(options.body);
    }
    if (init.method !== 'GET' && S.session) init.headers['X-CSRF-Token'] = S.session.csrf;
    if (options.headers) Object.assign(init.headers, options.headers);
    const reply = await fetch(path, init);
    if (reply.status === 401 && !options.allow401) {
      location.href = '/admin/login?next=' + encodeURIComponent(location.pathname + location.search);
      throw new Error('not signed in');
    }
    const text = await reply.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (_) { data = { raw: text }; }
    if (!reply.ok && !options.allowError) {
      const message = data && data.error ? data.error.message || data.error.key : reply.status + ' ' + reply.statusText;
      const error = new Error(message);
      error.status = reply.status;
      error.data = data;
      throw error;
    }
    return { status: reply.status, data };
  };

  // What every empty field shows: a value the server did not send, or sent blank.
  S.none = '—';
  const missing = (n) => n === null || n === undefined || n === '' || Number.isNaN(Number(n));
  S.fmtInt = (n) => (missing(n) ? S.none : Number(n).toLocaleString('en-US'));
  S.fmtMs = (n) => (missing(n) ? S.none : n >= 10000 ? (n / 1000).toFixed(1) + ' s' : Math.round(n) + ' ms');
  S.fmtUsd = (micros) => {
    if (missing(micros)) return S.none;
    const usd = Number(micros) / 1e6;
    return '$' + (usd >= 100 ? usd.toFixed(2) : usd >= 1 ? usd.toFixed(3) : usd.toFixed(6));
  };
  S.fmtPct = (x) => (missing(x) ? S.none : (x * 100).toFixed(1) + ' %');
  S.fmtTime = (t) => {
    if (!t) return S.none;
    const d = new Date(t);
    return isNaN(d) ? String(t) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  };
  S.badge = (state) => el('span', { class: 'badge st-' + state, text: String(state).replace('_', ' ') });

  // columns: [{title, value: row => node|text, num: bool}]
  S.table = function (columns, rows, options = {}) {
    const head = el('tr', {}, columns.map((c) => el('th', { class: c.num ? 'num' : null, scope: 'col', text: c.title })));
    const body = rows.map((row) =>
      el('tr', options.rowAttrs ? options.rowAttrs(row) : {}, columns.map((c) => {
        const value = c.value(row);
        return el('td', { class: c.num ? 'num' : null }, value === undefined || value === null || value === '' ? S.none : value);
      })));
    if (rows.length === 0) body.push(el('tr', {}, el('td', { colspan: columns.length, class: 'muted', text: options.empty || 'Nothing yet.' })));
    return el('div', { class: 'scroll' }, el('table', options.attrs || {}, el('thead', {}, head), el('tbody', {}, body)));
  };

  // A value is blank when it is absent, empty text, or an element with no text (an empty <code> box).
  S.blank = (v) => v === undefined || v === null || v === '' || (v instanceof Node && !v.textContent.trim());
  // Detail views: label and value pairs; a blank value reads S.none (an element keeps its id and gets S.none as text).
  S.kv = (pairs) => el('dl', { class: 'kv' }, pairs.flatMap(([k, v]) => {
    if (v instanceof Node && S.blank(v)) v.replaceChildren(S.none);
    return [el('dt', { text: k }), el('dd', {}, S.blank(v) ? S.none : v)];
  }));

  S.codeBlock = function (text, label) {
    const pre = el('pre', { 'aria-label': label || 'configuration' }, text);
    const copy = el('button', { type: 'button', class: 'secondary copy', onclick: async () => {
      try { await navigator.clipboard.writeText(text); copy.textContent = 'Copied'; } catch (_) { copy.textContent = 'Select and copy'; }
    } }, 'Copy');
    return el('div', {}, copy, pre);
  };

  // Accessible tabs: [{id, title, render: async (panel) => {}}]; the hash remembers the tab.
  S.tabs = function (container, tabs) {
    const list = el('div', { class: 'tabs', role: 'tablist' });
    const panel = el('section', { role: 'tabpanel', tabindex: '0' });
    const buttons = tabs.map((tab, index) => el('button', {
      type: 'button', role: 'tab', id: 'tab-' + tab.id, 'aria-selected': 'false', 'aria-controls': 'panel',
      onclick: () => select(index),
      onkeydown: (event) => {
        if (event.key === 'ArrowRight') { select((index + 1) % tabs.length); buttons[(index + 1) % tabs.length].focus(); }
        if (event.key === 'ArrowLeft') { select((index + tabs.length - 1) % tabs.length); buttons[(index + tabs.length - 1) % tabs.length].focus(); }
      },
    }, tab.title));
    panel.id = 'panel';
    list.append(...buttons);
    container.replaceChildren(list, panel);
    async function select(index) {
      buttons.forEach((b, i) => { b.setAttribute('aria-selected', String(i === index)); b.tabIndex = i === index ? 0 : -1; });
      history.replaceState(null, '', '#' + tabs[index].id);
      panel.setAttribute('aria-labelledby', 'tab-' + tabs[index].id);
      panel.replaceChildren(el('p', { class: 'muted', text: 'Loading…' }));
      try {
        const content = el('div', {});
        await tabs[index].render(content);
        panel.replaceChildren(content);
      } catch (error) {
        panel.replaceChildren(el('p', { class: 'error', role: 'alert', text: 'Could not load: ' + error.message }));
      }
    }
    const wanted = tabs.findIndex((t) => '#' + t.id === location.hash);
    select(wanted >= 0 ? wanted : 0);
    window.addEventListener('hashchange', () => {
      const index = tabs.findIndex((t) => '#' + t.id === location.hash);
      if (index >= 0) select(index);
    });
    return { select };
  };

  // A quota counter's spend, one `tag` element per measure counted or capped: "requests: 12 of 600
  // (2.0%)", the share coloured as it nears the ceiling (the Members and Account pages).
  S.usageParts = function (counter, tag, attrs = {}) {
    const parts = [];
    for (const [field, label, fmt] of [['requests', 'requests', S.fmtInt], ['input_tokens', 'input tokens', S.fmtInt],
      ['output_tokens', 'output tokens', S.fmtInt], ['cost_microdollars', 'cost', S.fmtUsd]]) {
      const ceiling = counter.ceilings ? counter.ceilings[field] : undefined;
      if (ceiling === undefined && !counter[field]) continue;
      const share = ceiling ? counter[field] / ceiling : null;
      parts.push(el(tag, attrs, `${label}: ${fmt(counter[field])}`, ceiling !== undefined ? ` of ${fmt(ceiling)} ` : ' ',
        share !== null ? el('span', { class: share >= 1 ? 'bad' : share >= 0.8 ? 'warnc' : 'good', text: `(${S.fmtPct(share)})` }) : ''));
    }
    return parts;
  };

  S.fail = function (app, error) {
    app.replaceChildren(el('p', { class: 'error', role: 'alert', text: 'Could not load: ' + error.message }));
  };

  // While the newest catalog reload was refused (the files on disk do not compile and the last good
  // catalog keeps serving), every page of a signed-in admin opens with a banner carrying the whole
  // diagnostics; it goes away by itself once a reload compiles. Checked on load and every 15 s.
  S.watchReload = function () {
    const main = document.getElementById('main');
    const title = main && main.querySelector('h1');
    if (!title) return;
    const check = async () => {
      let status = null;
      try { status = (await S.api('/admin/api/catalog/status', { allowError: true, allow401: true })).data; } catch (_) { return; }
      const old = document.getElementById('reload-banner');
      if (!status || !status.reload_refused_now || !status.last_refused) {
        if (old) old.remove();
        return;
      }
      const banner = el('div', { class: 'banner', id: 'reload-banner', role: 'alert' },
        el('p', {}, el('b', { text: 'Catalog reload refused. ' }),
          `The files in ${status.services_dir} changed and do not compile (refused ${S.fmtTime(status.last_refused.at)}), so this gateway keeps serving catalog `,
          el('code', { text: status.version }), ` (loaded ${S.fmtTime(status.loaded_at)} by ${status.loaded_by}). Fix the files and the next check reloads them by itself; details in `,
          el('a', { href: '/admin/gateway#settings', text: 'Gateway → Settings' }), '.'),
        el('pre', { class: 'wrap', id: 'reload-diagnostics', text: status.last_refused.diagnostics.join('\n') || 'no diagnostics were reported' }));
      if (old) old.replaceWith(banner);
      else title.after(banner);
    };
    check();
    setInterval(check, 15000);
  };

  // Runs the page once the session is known. open: the page works without a session.
  S.start = function (render, options = {}) {
    const go = async () => {
      const page = document.body.dataset.page;
      for (const link of document.querySelectorAll('[data-nav]')) {
        if (link.dataset.nav === page || (page === 'request' && link.dataset.nav === 'requests')) link.setAttribute('aria-current', 'page');
      }
      try {
        const reply = await S.api('/admin/api/session', { allow401: options.open, allowError: options.open });
        S.session = reply.status === 200 ? reply.data : null;
      } catch (_) {
        return;
      }
      const who = document.getElementById('who');
      const out = document.getElementById('sign-out');
      if (S.session && who) {
        who.textContent = S.session.user;
        out.hidden = false;
        out.addEventListener('click', async () => {
          await S.api('/admin/logout', { method: 'POST' });
          location.href = '/admin/login';
        });
      }
      if (S.session) S.watchReload();
      const app = document.getElementById('app');
      try {
        await render(app);
      } catch (error) {
        S.fail(app, error);
      }
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', go);
    else go();
  };
})();
