// /admin/requests: filters, a paginated list of the audit trail, and live activity (SSE).
'use strict';
(function () {
  const S = window.Sluice;
  const el = S.el;
  const OUTCOMES = ['', 'ok', 'client_gone_mid_stream', 'client_gone_before_response', 'upstream_error', 'upstream_timeout',
    'all_deployments_failed', 'no_deployment_available', 'unknown_model', 'retired_model', 'invalid_request',
    'request_too_large', 'context_window_exceeded', 'unauthenticated', 'access_denied', 'governance_denied',
    'quota_exceeded', 'shutting_down', 'internal_error'];

  const outcomeCell = (r) => el('span', { class: r.outcome === 'ok' ? 'good' : 'bad', text: r.outcome });
  const servedCell = (r) => el('span', {}, r.served_endpoint || r.served_provider || S.none,
    r.served_endpoint && r.endpoint && r.served_endpoint !== r.endpoint ? el('span', { class: 'warnc', text: ' (failover)' }) : '');

  function columns() {
    return [
      { title: 'Time (UTC)', value: (r) => el('a', { href: '/admin/requests/' + r.id, text: S.fmtTime(r.created_at) }) },
      { title: 'Member', value: (r) => r.user_name || S.none },
      { title: 'Project', value: (r) => r.project || S.none },
      { title: 'Asked for', value: (r) => r.requested_model || S.none },
      { title: 'Model', value: (r) => r.model || S.none },
      { title: 'Served by', value: servedCell },
      { title: 'Status', value: (r) => r.status, num: true },
      { title: 'Outcome', value: outcomeCell },
      { title: 'Tokens in/out', value: (r) => `${S.fmtInt(r.input_tokens)} / ${S.fmtInt(r.output_tokens)}`, num: true },
      { title: 'Cost', value: (r) => S.fmtUsd(r.cost_microdollars), num: true },
      { title: 'Latency', value: (r) => S.fmtMs(r.latency_ms), num: true },
    ];
  }

  function live(container) {
    const rows = [];
    const list = el('div', { class: 'live', id: 'live-list' });
    const state = el('span', { class: 'muted', text: 'connecting…' });
    container.append(el('h2', {}, 'Live activity ', state), list);
    const render = () => list.replaceChildren(S.table([
      { title: 'Time (UTC)', value: (r) => el('a', { href: '/admin/requests/' + r.id, text: S.fmtTime(r.created_at) }) },
      { title: 'Member', value: (r) => r.user_name || S.none },
      { title: 'Asked for', value: (r) => r.requested_model || S.none },
      { title: 'Served by', value: servedCell },
      { title: 'Outcome', value: outcomeCell },
      { title: 'Latency', value: (r) => S.fmtMs(r.latency_ms), num: true },
      { title: 'Replica', value: (r) => r.replica || S.none },
    ], rows, { empty: 'Waiting for requests… (from every replica: the audit trail is polled each second)' }));
    render();
    const source = new EventSource('/admin/api/requests/live');
    source.addEventListener('ready', () => { state.textContent = '(live)'; });
    source.addEventListener('request', (event) => {
      rows.unshift(JSON.parse(event.data));
      rows.splice(50);
      render();
    });
    source.onerror = () => { state.textContent = '(reconnecting…)'; };
    window.addEventListener('pagehide', () => source.close());
  }

  S.start(async (app) => {
    const params = new URLSearchParams(location.search);
    const input = (name, label, attrs = {}) => el('label', {}, label, el('input', { name, value: params.get(name) || '', ...attrs }));
    const form = el('form', { class: 'filters', id: 'filters' },
      el('label', {}, 'Since', el('select', { name: 'since' }, ['15m', '1h', '6h', '24h', '7d', '30d'].map((v) =>
        el('option', { value: v, selected: (params.get('since') || '24h') === v }, v)))),
      // A member sees their own requests only (the server holds to it whatever the filter says).
      S.session.admin ? input('user', 'Member') : null, input('project', 'Project'), input('model', 'Model'),
      el('label', {}, 'Outcome', el('select', { name: 'outcome' }, OUTCOMES.map((o) =>
        el('option', { value: o, selected: (params.get('outcome') || '') === o }, o || 'any')))),
      el('label', {}, 'Probes', el('select', { name: 'probes' },
        el('option', { value: '', selected: !params.get('probes') }, 'hidden'),
        el('option', { value: '1', selected: params.get('probes') === '1' }, 'shown'))),
      el('button', { type: 'submit' }, 'Filter'));
    const results = el('div', { id: 'request-list' });
    const pager = el('div', { class: 'pager' });
    const liveBox = el('div', {});
    app.replaceChildren(form, results, pager, liveBox);
    const cursors = [];
    async function load(before) {
      const query = new URLSearchParams();
      for (const [k, v] of new FormData(form)) if (v) query.set(k, v);
      if (before) query.set('before', before);
      const { data } = await S.api('/admin/api/requests?' + query);
      results.replaceChildren(S.table(columns(), data.requests, { empty: 'No request matches.', attrs: { id: 'requests-table' } }));
      pager.replaceChildren(
        el('button', { type: 'button', class: 'secondary', disabled: cursors.length === 0, onclick: () => { cursors.pop(); load(cursors[cursors.length - 1]); } }, '← Newer'),
        el('span', { class: 'muted', text: `${data.requests.length} shown` }),
        el('button', { type: 'button', class: 'secondary', disabled: !data.next_before, onclick: () => { cursors.push(data.next_before); load(data.next_before); } }, 'Older →'));
    }
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const query = new URLSearchParams();
      for (const [k, v] of new FormData(form)) if (v) query.set(k, v);
      history.replaceState(null, '', '?' + query);
      cursors.length = 0;
      load();
    });
    await load();
    if (S.session.admin) live(liveBox);
  });
})();
