// /admin/analytics: latency per model against an SLO, traffic over time as SVG, cost by dimension,
// cache hit ratio and savings per route and served deployment.
'use strict';
(function () {
  const S = window.Sluice;
  const el = S.el;

  // A bar chart of one series over the window's buckets (empty buckets drawn as zero).
  function chart(title, data, field, format, integer = true) {
    const W = 720, H = 220, L = 64, R = 12, T = 26, B = 30;
    const byT = new Map(data.series.map((p) => [p.t, p]));
    const start = Math.floor(data.from / data.bucket_seconds) * data.bucket_seconds;
    const points = [];
    for (let t = start; t <= data.to; t += data.bucket_seconds) points.push({ t, v: byT.has(t) ? Number(byT.get(t)[field]) : 0 });
    // Counts get whole-number ticks: up to 4 divisions, the top rounded up to a multiple of them.
    const top = Math.max(integer ? 1 : 1e-9, ...points.map((p) => p.v));
    const divisions = integer ? Math.max(1, Math.min(4, Math.ceil(top))) : 4;
    const max = integer ? Math.ceil(top / divisions) * divisions : top;
    const bw = (W - L - R) / points.length;
    const svg = el('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title} over time`, 'data-chart': field });
    svg.append(el('title', { text: title }));
    svg.append(el('text', { x: L, y: 16, text: title, 'font-weight': '600' }));
    for (let i = 0; i <= divisions; i++) {
      const y = T + ((H - T - B) * i) / divisions;
      svg.append(el('line', { x1: L, x2: W - R, y1: y, y2: y, stroke: '#e3e7ec' }));
      svg.append(el('text', { x: L - 6, y: y + 4, 'text-anchor': 'end', text: format(max * (1 - i / divisions)) }));
    }
    points.forEach((p, i) => {
      const h = ((H - T - B) * p.v) / max;
      const rect = el('rect', { x: L + i * bw + 1, y: H - B - h, width: Math.max(1, bw - 2), height: h, fill: '#1f5fbf' });
      rect.append(el('title', { text: `${new Date(p.t * 1000).toISOString().slice(0, 16).replace('T', ' ')}Z: ${format(p.v)}` }));
      svg.append(rect);
    });
    const labels = 6;
    for (let i = 0; i < labels; i++) {
      const index = Math.floor((i * (points.length - 1)) / (labels - 1));
      const date = new Date(points[index].t * 1000).toISOString();
      svg.append(el('text', { x: L + index * bw + bw / 2, y: H - 10, 'text-anchor': 'middle',
        text: data.since_seconds > 2 * 86400 ? date.slice(5, 10) : date.slice(11, 16) }));
    }
    return svg;
  }

  function cacheSummary(rows) {
    const sum = (field) => rows.reduce((total, r) => total + Number(r[field]), 0);
    const prompt = sum('input_tokens');
    const ratio = prompt > 0 ? S.fmtPct(sum('cache_read_tokens') / prompt) : S.none;
    return `Cache reads saved ${S.fmtUsd(sum('cache_savings_microdollars'))} at the served deployments' prices; ` +
      `${ratio} of prompt tokens were read from a provider cache. Saved = cache-read tokens × (input price − cache-read price).`;
  }

  function costTable(rows, label) {
    const max = Math.max(1, ...rows.map((r) => r.cost_microdollars));
    return S.table([
      { title: label, value: (r) => r.key || '(none)' },
      { title: 'Requests', value: (r) => S.fmtInt(r.requests), num: true },
      { title: 'Failed', value: (r) => S.fmtInt(r.failed), num: true },
      { title: 'Tokens in / out', value: (r) => `${S.fmtInt(r.input_tokens)} / ${S.fmtInt(r.output_tokens)}`, num: true },
      { title: 'Cost', value: (r) => S.fmtUsd(r.cost_microdollars), num: true },
      { title: '', value: (r) => { const bar = el('span', { class: 'bar' }); bar.style.width = Math.round((120 * r.cost_microdollars) / max) + 'px'; return bar; } },
    ], rows, { empty: 'No traffic in this window.' });
  }

  // Cache hit ratio = cache-read share of all prompt tokens (input_tokens counts cached ones too).
  function cacheTable(rows, label, dim) {
    const max = Math.max(1, ...rows.map((r) => r.cache_savings_microdollars));
    return S.table([
      { title: label, value: (r) => r.key || '(none)' },
      { title: 'Requests', value: (r) => S.fmtInt(r.requests), num: true },
      { title: 'Prompt tokens', value: (r) => S.fmtInt(r.input_tokens), num: true },
      { title: 'Cache read', value: (r) => S.fmtInt(r.cache_read_tokens), num: true },
      { title: 'Hit ratio', value: (r) => (r.input_tokens > 0 ? S.fmtPct(r.cache_hit_ratio) : S.none), num: true },
      { title: 'Saved', value: (r) => S.fmtUsd(r.cache_savings_microdollars), num: true },
      { title: 'Cost', value: (r) => S.fmtUsd(r.cost_microdollars), num: true },
      { title: '', value: (r) => { const bar = el('span', { class: 'bar' }); bar.style.width = Math.round((120 * r.cache_savings_microdollars) / max) + 'px'; return bar; } },
    ], rows, { attrs: { id: `cache-${dim}` }, rowAttrs: (r) => ({ 'data-key': r.key }), empty: 'No traffic in this window.' });
  }

  S.start(async (app) => {
    const params = new URLSearchParams(location.search);
    const since = params.get('since') || '24h';
    const slo = params.get('slo_ms') || '5000';
    const form = el('form', { class: 'filters', method: 'get' },
      el('label', {}, 'Window', el('select', { name: 'since' }, ['1h', '6h', '24h', '7d', '30d'].map((v) => el('option', { value: v, selected: v === since }, v)))),
      el('label', {}, 'SLO (ms, 500–60000)', el('input', { name: 'slo_ms', type: 'number', min: 500, max: 60000, step: 100, value: slo })),
      el('button', { type: 'submit' }, 'Apply'));
    const { data } = await S.api(`/admin/api/analytics?since=${encodeURIComponent(since)}&slo_ms=${encodeURIComponent(slo)}`);
    app.replaceChildren(form,
      el('p', { class: 'muted', text: `Console Test calls (probes) are excluded. Buckets of ${data.bucket_seconds / 60} minutes.` }),
      el('h2', { text: `Latency per model (SLO ${S.fmtMs(data.slo_ms)})` }),
      S.table([
        { title: 'Model', value: (m) => m.model },
        { title: 'Requests', value: (m) => S.fmtInt(m.requests), num: true },
        { title: 'p50', value: (m) => S.fmtMs(m.p50_ms), num: true },
        { title: 'p95', value: (m) => S.fmtMs(m.p95_ms), num: true },
        { title: 'Over SLO', value: (m) => el('span', { class: m.over_slo_share > 0.05 ? 'bad' : 'good', text: `${S.fmtPct(m.over_slo_share)} (${m.over_slo})` }), num: true },
        { title: 'TTFB p50', value: (m) => S.fmtMs(m.ttfb_p50_ms), num: true },
        { title: 'Failed', value: (m) => S.fmtInt(m.failed), num: true },
        { title: 'Cost', value: (m) => S.fmtUsd(m.cost_microdollars), num: true },
      ], data.models, { attrs: { id: 'latency-table' }, empty: 'No traffic in this window.' }),
      el('h2', { text: 'Over time' }),
      el('div', { class: 'chart-grid' },
        chart('Requests', data, 'requests', (v) => S.fmtInt(Math.round(v))),
        chart('Tokens in', data, 'input_tokens', (v) => S.fmtInt(Math.round(v))),
        chart('Tokens out', data, 'output_tokens', (v) => S.fmtInt(Math.round(v))),
        chart('Cost', data, 'cost_microdollars', (v) => S.fmtUsd(v), false)),
      el('h2', { text: 'Prompt cache' }),
      el('p', { class: 'muted', id: 'cache-summary', text: cacheSummary(data.cost_by.route) }),
      el('div', { class: 'grid wide' }, [['route', 'Route'], ['deployment', 'Deployment']].map(([dim, label]) => el('div', { class: 'card' },
        el('h3', {}, label, ' ',
          el('a', { href: `/admin/api/analytics.csv?by=${dim}&since=${encodeURIComponent(since)}`, download: `sluice-cost-by-${dim}.csv`, text: 'CSV' })),
        cacheTable(data.cost_by[dim], label, dim)))),
      el('h2', { text: 'Cost by' }),
      el('div', { class: 'grid' }, ['member', 'project', 'model', 'provider'].map((dim) => el('div', { class: 'card' },
        el('h3', {}, dim[0].toUpperCase() + dim.slice(1), ' ',
          el('a', { href: `/admin/api/analytics.csv?by=${dim}&since=${encodeURIComponent(since)}`, download: `sluice-cost-by-${dim}.csv`, text: 'CSV' })),
        costTable(data.cost_by[dim], dim)))));
  });
})();
