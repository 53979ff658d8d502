// /admin/requests/<id>: one audit row: what was asked, what served it and why, the attempts as a
// timeline, tokens, cost and timings.
'use strict';
(function () {
  const S = window.Sluice;
  const el = S.el;
  S.start(async (app) => {
    const id = decodeURIComponent(location.pathname.split('/').pop());
    const { data: r } = await S.api('/admin/api/requests/' + encodeURIComponent(id));
    document.querySelector('h1').textContent = 'Request ' + r.id;
    const failover = r.served_endpoint && r.endpoint && r.served_endpoint !== r.endpoint;
    const attempts = Array.isArray(r.attempts) ? r.attempts : [];
    // Data protection: values masked per kind before a provider saw them (counts, never values).
    const masked = r.masked && typeof r.masked === 'object' ? Object.entries(r.masked) : [];
    let offset = 0;
    const both = (a, b, join) => (a && b ? `${a}${join}${b}` : a || b || '');
    app.replaceChildren(
      el('p', {}, el('a', { href: '/admin/requests', text: '← All requests' })),
      el('div', { class: 'grid' },
        el('div', { class: 'card' }, el('h2', { text: 'Who' }), S.kv([
          ['Member', r.user_name], ['API key', r.api_key_id], ['Project', r.project ? both(r.project, r.project_source && `(${r.project_source})`, ' ') : ''],
          ['Client', both(r.client_family, r.client_wire && `on the ${r.client_wire} wire`, ' ')],
          ['Client address', el('span', { id: 'client-address', text: r.client_address || '—' })], ['Arrived', S.fmtTime(r.created_at)],
          ['Completed', S.fmtTime(r.completed_at)], ['Probe', r.probe ? 'yes (console Test)' : 'no'],
          ['Trace', r.trace_id
            ? (r.trace_url && /^https?:\/\//.test(r.trace_url)
              ? el('a', { id: 'trace-id', href: r.trace_url, target: '_blank', rel: 'noopener noreferrer', text: r.trace_id })
              : el('code', { id: 'trace-id', text: r.trace_id }))
            : '—'],
        ])),
        el('div', { class: 'card', id: 'request-routing' }, el('h2', { text: 'What served it' }), S.kv([
          ['Asked for', r.requested_model], ['Model', r.model], ['Route', r.route_id], ['Strategy', r.strategy],
          ['Provider (primary)', both(r.provider, r.endpoint, ' · ')],
          ['Served provider', el('span', { id: 'served-provider' }, both(r.served_provider, r.served_endpoint, ' · ') || 'none',
            failover ? el('span', { class: 'warnc', text: ' (failover)' }) : '')],
          ['Route match', el('code', { id: 'route-match', text: r.route_match })],
        ])),
        el('div', { class: 'card' }, el('h2', { text: 'Outcome' }), S.kv([
          ['Status', r.status], ['Outcome', el('span', { id: 'outcome', class: r.outcome === 'ok' ? 'good' : 'bad', text: r.outcome })],
          ['Error', both(r.error_key, r.error_message, ': ')], ['Streaming', r.is_streaming ? 'yes' : 'no'],
          ['Client left early', r.aborted ? 'yes' : 'no'],
          ['Masked', el('span', { id: 'masked', text: masked.length ? masked.map(([kind, n]) => `${kind} ${n}`).join(', ') : 'nothing' })],
        ])),
        el('div', { class: 'card' }, el('h2', { text: 'Tokens, cost, time' }), S.kv([
          ['Input tokens', S.fmtInt(r.input_tokens)], ['Output tokens', S.fmtInt(r.output_tokens)],
          ['Cache read / write', `${S.fmtInt(r.cache_read_tokens)} / ${S.fmtInt(r.cache_write_tokens)}`],
          ['Reasoning tokens', S.fmtInt(r.reasoning_tokens)], ['Cost', S.fmtUsd(r.cost_microdollars)],
          ['Cache savings', el('span', { id: 'cache-savings', text: S.fmtUsd(r.cache_savings_microdollars) })],
          ['Latency', S.fmtMs(r.latency_ms)], ['Time to first byte', S.fmtMs(r.ttfb_ms)],
          ['Waiting on upstreams', S.fmtMs(r.upstream_ms)], ['Gateway overhead', S.fmtMs(r.overhead_ms)],
        ]))),
      el('h2', { text: `Attempts (${attempts.length})` }),
      attempts.length ? el('ol', { class: 'timeline', id: 'attempts' }, attempts.map((a) => {
        const start = offset;
        const took = Number.isFinite(a.duration_ms) ? a.duration_ms : 0;
        offset += took;
        const kind = a.result === 'ok' ? 'ok' : String(a.result || '').startsWith('skipped') ? 'skip' : 'fail';
        return el('li', { class: kind },
          el('b', { text: both(a.provider, a.endpoint, ' · ') || S.none }), ' ',
          el('span', { class: kind === 'ok' ? 'good' : kind === 'skip' ? 'warnc' : 'bad', text: a.result || S.none }),
          a.status ? ` (HTTP ${a.status})` : '', el('br'),
          el('span', { class: 'muted', text: `+${start} ms, took ${S.fmtMs(a.duration_ms)}` }), ' ',
          el('span', { class: 'bar', style: null, 'data-width': Math.max(2, Math.min(300, took / 10)) }),
          a.error ? el('div', { class: 'muted', text: a.error }) : '');
      })) : el('p', { class: 'muted', text: 'No upstream was tried.' }));
    for (const bar of app.querySelectorAll('.bar')) bar.style.width = bar.dataset.width + 'px';
    if (r.request_body || r.response_body) {
      app.append(el('h2', { text: 'Bodies' }), el('pre', { text: r.request_body || '' }), el('pre', { text: r.response_body || '' }));
    }
  });
})();
