// /admin/gateway: Overview, Providers, Routes (with the route editor), Settings.
'use strict';
(function () {
  const S = window.Sluice;
  const el = S.el;

  function probeButton(model, endpoint) {
    const out = el('div', { class: 'probe-result', 'aria-live': 'polite' });
    const button = el('button', { type: 'button', class: 'secondary', 'data-probe': model + ' ' + endpoint,
      'aria-label': 'Test ' + model + ' on ' + endpoint,
      onclick: async () => {
        button.disabled = true;
        out.replaceChildren('Testing…');
        try {
          const { data } = await S.api('/admin/api/probe', { method: 'POST', body: { model, endpoint }, allowError: true });
          if (data.error && data.error.key) {
            out.replaceChildren(el('span', { class: 'bad', text: data.error.message }));
          } else {
            out.replaceChildren(
              el('span', { class: data.ok ? 'good' : 'bad', text: (data.ok ? 'OK ' : 'Failed ') + (data.status || '') }),
              ' · ', S.fmtMs(data.latency_ms), ' · ',
              data.ok ? el('q', { class: 'probe-answer', text: data.answer }) : el('span', { text: data.error || '' }),
              ' ', el('a', { href: '/admin/requests/' + data.request_id, text: 'audit row' }));
          }
        } catch (error) {
          out.replaceChildren(el('span', { class: 'bad', text: error.message }));
        } finally {
          button.disabled = false;
        }
      } }, 'Test');
    return [button, out];
  }

  // Today (UTC, every replica): spend, the error rate with quota refusals (the caller's limit)
  // counted apart from provider failures, and the five costliest members.
  function today(t) {
    const rate = (n) => (t.requests ? S.fmtPct(n / t.requests) : S.none);
    return el('section', { id: 'today' },
      el('h2', { text: 'Today (UTC)' }),
      el('div', { class: 'stats' },
        el('div', { class: 'stat' }, 'Spend', el('b', { id: 'today-spend', text: S.fmtUsd(t.spend_microdollars) })),
        el('div', { class: 'stat' }, 'Requests', el('b', { text: S.fmtInt(t.requests) })),
        el('div', { class: 'stat' }, 'Error rate', el('b', { id: 'today-errors', class: t.error_rate > 0.05 ? 'bad' : 'good', text: rate(t.failed) })),
        el('div', { class: 'stat' }, 'Quota refusals', el('b', { id: 'today-quota', text: `${rate(t.quota_refused)} (${S.fmtInt(t.quota_refused)})` })),
        el('div', { class: 'stat' }, 'Provider failures', el('b', { id: 'today-provider', class: t.provider_failed ? 'bad' : 'good', text: `${rate(t.provider_failed)} (${S.fmtInt(t.provider_failed)})` }))),
      el('h3', {}, 'Top spenders today ', el('a', { href: `/admin/analytics?from=${new Date(t.since * 1000).toISOString().slice(0, 10)}`, text: 'analytics' })),
      S.table([
        { title: 'Member', value: (r) => r.member || '(none)' },
        { title: 'Requests', value: (r) => S.fmtInt(r.requests), num: true },
        { title: 'Cost', value: (r) => S.fmtUsd(r.cost_microdollars), num: true },
      ], t.top_spenders, { attrs: { id: 'today-top' }, rowAttrs: (r) => ({ 'data-key': r.member }), empty: 'No spend today.' }));
  }

  async function overview(panel) {
    const { data } = await S.api('/admin/api/gateway/overview');
    const open = data.breakers.filter((b) => b.state !== 'closed').length;
    panel.append(el('div', { class: 'stats' },
      el('div', { class: 'stat' }, 'Catalog', el('b', { text: data.version })),
      el('div', { class: 'stat' }, 'In flight', el('b', { text: S.fmtInt(data.in_flight) })),
      el('div', { class: 'stat' }, 'Breakers not closed', el('b', { class: open ? 'bad' : 'good', text: String(open) })),
      el('div', { class: 'stat' }, 'Models', el('b', { text: String(data.models.length) }))));
    if (data.today) panel.append(today(data.today));
    panel.append(el('p', { class: 'muted', text: `Dispatch order per model (failover goes down the list), live breaker state on this replica, and the last ${data.window_minutes} minutes of traffic from the audit trail (all replicas).` }));
    const grid = el('div', { class: 'grid' });
    for (const model of data.models) {
      const r = model.recent;
      const rate = (n) => (r.requests ? S.fmtPct(n / r.requests) : S.none);
      grid.append(el('div', { class: 'card', 'data-model': model.id },
        el('h3', {}, model.id, ' ', el('span', { class: 'muted', text: model.display_name })),
        el('p', { class: 'muted' }, `${S.fmtInt(r.requests)} requests · errors ${rate(r.failed)} · failovers ${rate(r.failed_over)}`),
        el('ol', {}, model.deployments.map((d) => el('li', {},
          el('code', { text: d.endpoint }), ' ', S.badge(d.breaker), ' ',
          d.configured ? '' : el('span', { class: 'bad', text: 'credential not configured ' }),
          d.credential_kind === 'personal' ? el('span', { class: 'muted', text: 'personal key ' }) : '',
          ...probeButton(model.id, d.endpoint))))));
    }
    panel.append(grid);
  }

  async function providers(panel) {
    const { data } = await S.api('/admin/api/gateway/providers');
    for (const p of data.providers) {
      panel.append(el('div', { class: 'card', 'data-provider': p.id },
        el('h3', {}, p.id, ' ', el('span', { class: 'muted', text: p.display_name })),
        S.kv([
          ['Credential', el('span', {}, el('code', { text: p.credential }), ` (${p.credential_kind}) `,
            el('span', { class: p.configured ? 'good' : 'bad', text: p.configured ? 'configured' : 'not configured' }))],
          // Cloud credentials (`aws:`, `gcp:`, `azure:`): whether they can be used now, where they came from, or why not.
          ...(p.cloud_credential ? [['Cloud credential', el('span', { 'data-cloud-credential': p.credential,
            class: p.cloud_credential.usable ? 'good' : (p.cloud_credential.pending ? 'muted' : 'bad'),
            text: p.cloud_credential.usable ? `usable: ${p.cloud_credential.detail}`
              : `${p.cloud_credential.pending ? 'pending' : 'unusable'}: ${p.cloud_credential.detail}` })]] : []),
          ['Governance', [p.european ? 'european' : null, p.no_retain ? 'no_retain' : null].filter(Boolean).join(', ') || 'none'],
          ['Retry / breaker', `${p.retry_attempts} retries; opens after ${p.breaker_failures} failures for ${p.breaker_cooldown_s} s`],
          ['Timeouts', `connect ${p.timeouts.connect_ms} ms, first byte ${p.timeouts.first_byte_ms} ms, idle ${p.timeouts.idle_ms} ms`],
          ['Declared at', p.where],
        ]),
        S.table([
          { title: 'Endpoint', value: (e) => el('code', { text: e.key }) },
          { title: 'Wire', value: (e) => e.wire },
          { title: 'URL', value: (e) => e.url },
          { title: 'Breaker', value: (e) => S.badge(e.breaker) },
          // Own machines: the presence hub's last word on the node, and why.
          { title: 'Presence', value: (e) => e.presence
            ? el('span', { 'data-presence': e.presence.node }, el('code', { text: e.presence.node }), ' ',
              el('span', { class: e.presence.state === 'available' ? 'good' : 'bad', text: e.presence.state }),
              e.presence.reason ? ` (${e.presence.reason})` : '', e.presence.address ? ` at ${e.presence.address}` : '')
            : (e.max_input_bytes ? `at most ${e.max_input_bytes} bytes` : '—') },
        ], p.endpoints),
        el('p', {}, 'Serves: ', p.models.length ? p.models.map((m, i) => [i ? ', ' : '', el('code', { text: m.model }), ` on ${m.endpoint}`]) : 'no model')));
    }
  }

  function lineStart(text, line) {
    let at = 0;
    for (let i = 1; i < line && at >= 0; i++) at = text.indexOf('\n', at) + 1;
    return Math.max(0, at);
  }

  // The edited text as a file, for a commit (nothing is sent anywhere).
  function download(text) {
    const url = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
    const link = el('a', { href: url, download: 'gateway.yaml', hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  async function editor(panel, saved) {
    const { data } = await S.api('/admin/api/routes/source');
    let tag = data.tag;
    let base = data.text;  // the file as loaded: what "Copy as diff" compares with
    const area = el('textarea', { class: 'editor', id: 'route-editor', spellcheck: 'false', 'aria-label': 'gateway.yaml' });
    area.value = data.text;
    const status = el('p', { id: 'editor-status', role: 'status' });
    const diagnostics = el('ul', { class: 'diagnostics', id: 'editor-diagnostics' });
    const history = el('div', { id: 'editor-history' });
    const diff = el('div', { id: 'editor-diff' });

    function showDiagnostics(list) {
      diagnostics.replaceChildren(...list.map((d) => el('li', { class: d.severity === 'error' ? 'error' : 'warnc' },
        d.in_gateway_yaml && d.line ? el('button', { type: 'button', class: 'secondary', onclick: () => {
          const at = lineStart(area.value, d.line);
          area.focus();
          area.setSelectionRange(at, area.value.indexOf('\n', at) < 0 ? area.value.length : area.value.indexOf('\n', at));
        } }, 'line ' + d.line) : '', ' ', d.text)));
    }
    function showHistory(entries) {
      history.replaceChildren(el('h3', { text: `Previous versions (${entries.length}, newest first; kept in ${data.history_dir})` }),
        entries.length ? el('ul', {}, entries.slice(0, 40).map((h) => el('li', {}, el('code', { text: h.name }), ' ',
          el('button', { type: 'button', class: 'secondary', onclick: async () => {
            const reply = await S.api('/admin/api/routes/history/' + encodeURIComponent(h.name));
            diff.replaceChildren(el('h3', { text: `${h.name} → current gateway.yaml` }),
              el('div', { class: 'diff' }, reply.data.diff.map((line) =>
                el('div', { class: line.op === '+' ? 'add' : line.op === '-' ? 'del' : null, text: line.op + ' ' + line.text }))));
          } }, 'Diff with current')))) : el('p', { class: 'muted', text: data.writable ? 'None yet: a save keeps the version it replaces.' : 'None: this replica does not save.' }));
    }
    async function run(save) {
      status.textContent = save ? 'Saving…' : 'Validating…';
      status.className = '';
      const reply = await S.api(save ? '/admin/api/routes/save' : '/admin/api/routes/validate',
        { method: 'POST', body: { text: area.value, base_tag: tag }, allowError: true });
      const d = reply.data || {};
      showDiagnostics(d.diagnostics || []);
      if (d.error && !d.ok) {
        status.textContent = d.error.message;
        status.className = 'error';
      } else if (!d.ok) {
        status.textContent = save ? 'Not saved: the catalog does not compile with this change.' : 'Invalid: see the diagnostics.';
        status.className = 'error';
      } else if (save) {
        tag = d.tag || tag;
        if (!d.unchanged) base = area.value;
        status.textContent = d.unchanged ? 'Nothing to save: the file already says this.'
          : `Saved. Catalog ${d.version} is live (${d.reload && d.reload.applied ? 'reloaded' : 'reload pending'}); the previous text is kept as ${d.kept}.`;
        status.className = 'good';
        if (d.history) showHistory(d.history);
        if (!d.unchanged) await saved();
      } else {
        status.textContent = `Valid: would be catalog ${d.version}.`;
        status.className = 'good';
      }
    }
    // A unified diff of the editor against the file as loaded, shown and put on the clipboard.
    const patch = el('div', { id: 'editor-patch-box' });
    async function copyDiff() {
      const reply = await S.api('/admin/api/routes/diff', { method: 'POST', body: { base, text: area.value } });
      const d = reply.data;
      if (!d.changed) {
        patch.replaceChildren();
        status.textContent = 'No difference: the editor holds the file as loaded.';
        status.className = 'muted';
        return;
      }
      let copied = false;
      try { await navigator.clipboard.writeText(d.diff); copied = true; } catch (_) { /* shown below to select by hand */ }
      patch.replaceChildren(el('h3', {}, 'Diff against the file as loaded (', el('code', { text: d.path }), '), for ', el('code', { text: 'git apply' }), ' at the repository root'),
        el('pre', { id: 'editor-patch', 'aria-label': 'unified diff' }, d.diff));
      status.textContent = copied ? 'Copied the diff: apply it in your clone and open a pull request.' : 'Select the diff below and copy it.';
      status.className = 'good';
    }
    const save = data.writable
      ? el('button', { type: 'button', id: 'editor-save', onclick: () => run(true) }, 'Save and reload')
      : null;
    const where = data.writable
      ? el('p', { class: 'note', id: 'editor-where' }, 'Save and reload writes the catalog directory of this replica, which then differs from git. ',
        'Where the catalog lives in git, Download the file or Copy as diff and change it through a pull request instead.')
      : el('p', { class: 'note', id: 'editor-read-only' }, el('b', { text: 'Saving is off here: ' }), data.read_only_reason || 'the catalog directory is read-only on this replica',
        '. Change gateway.yaml in git (Download it, or Copy as diff for a pull request) and roll it out: every replica reloads it.');
    panel.append(el('h2', { text: 'Edit gateway.yaml' }),
      el('p', { class: 'muted' }, 'Checked by the same compiler the gateway loads the catalog with, against the other files in ',
        el('code', { text: data.path.replace(/ai\/gateway\.yaml$/, '') }), '. A change that does not compile is never written. Comments and order are kept: the text is saved as you typed it.'),
      where, area,
      el('div', { class: 'pager' },
        el('button', { type: 'button', class: 'secondary', id: 'editor-validate', onclick: () => run(false) }, 'Validate'),
        save,
        el('button', { type: 'button', class: 'secondary', id: 'editor-download', onclick: () => download(area.value) }, 'Download'),
        el('button', { type: 'button', class: 'secondary', id: 'editor-copy-diff', onclick: () => copyDiff().catch((error) => {
          status.textContent = 'No diff: ' + error.message;
          status.className = 'error';
        }) }, 'Copy as diff'),
        el('button', { type: 'button', class: 'secondary', onclick: async () => {
          const fresh = await S.api('/admin/api/routes/source');
          area.value = fresh.data.text;
          tag = fresh.data.tag;
          base = fresh.data.text;
          patch.replaceChildren();
          status.textContent = 'Reloaded from disk.';
        } }, 'Revert to file')),
      status, diagnostics, patch, history, diff);
    showHistory(data.history);
  }

  async function routesTable() {
    const { data } = await S.api('/admin/api/gateway/routes');
    return S.table([
        { title: '#', value: (r) => r.position, num: true },
        { title: 'Route', value: (r) => el('span', {}, el('code', { text: r.id }), el('br'), el('span', { class: 'muted', text: r.label })) },
        { title: 'Kind', value: (r) => r.kind },
        { title: 'Models', value: (r) => r.models.join(', ') },
        { title: 'Scope', value: (r) => r.scope_project || S.none },
        { title: 'Deployments (in order)', value: (r) => el('ol', {}, r.deployments.map((d) => el('li', {}, el('code', { text: d.endpoint }),
          r.strategy === 'weighted' ? ` weight ${d.weight}` : '', ' ', d.breaker ? S.badge(d.breaker) : ''))) },
        { title: 'Strategy', value: (r) => r.strategy },
        { title: 'Context fallbacks', value: (r) => r.context_fallbacks.join(' → ') || S.none },
        { title: 'Requires', value: (r) => r.requires.join(', ') || S.none },
      ], data.routes, { attrs: { id: 'routes-table' }, rowAttrs: (r) => ({ 'data-route': r.id }) });
  }

  async function routes(panel) {
    const table = el('div', {}, await routesTable());
    const holder = el('div', {});
    panel.append(el('p', { class: 'muted', text: 'First match wins, top to bottom: explicit routes in gateway.yaml order, then one implicit route per model.' }),
      table, holder);
    await editor(holder, async () => table.replaceChildren(await routesTable()));
  }

  async function settings(panel) {
    const { data } = await S.api('/admin/api/gateway/settings');
    const r = data.reload;
    panel.append(el('h2', { text: 'Catalog' }), S.kv([
      ['Default model', el('code', { text: data.default_model })],
      ['Version', el('code', { id: 'settings-version', text: data.version })],
      ['Services directory', data.services_dir],
      ['Declared', `${data.counts.credentials} credentials, ${data.counts.providers} providers, ${data.counts.models} models, ${data.counts.routes} routes, ${data.counts.access_rules} access rules`],
    ]));
    panel.append(el('h2', { text: 'Live reload' }), S.kv([
      ['Loaded', el('span', { id: 'settings-loaded' }, `${S.fmtTime(r.loaded_at)} by ${r.loaded_by}`)],
      ['Reloads accepted', el('span', { id: 'settings-accepted', text: String(r.reloads_accepted) })],
      ['Reloads refused', String(r.reloads_refused)],
      ['Last refusal', r.refused_at
        ? S.fmtTime(r.refused_at) + (r.reload_refused_now ? ': standing (the files on disk do not compile; the catalog above keeps serving)' : ': a later reload compiled')
        : 'none'],
    ]));
    if (r.refused_diagnostics.length) panel.append(el('pre', { class: 'error wrap', id: 'settings-refused', text: r.refused_diagnostics.join('\n') }));
    const fleet = data.fleet;
    panel.append(el('h2', { text: `Fleet (this page is served by ${data.replica})` }));
    if (fleet.versions > 1) {
      panel.append(el('p', { class: 'error', id: 'fleet-split', text: `The fleet serves ${fleet.versions} catalog versions: a change has not reached every replica yet (each reloads its catalog directory; see docs/deploying.md).` }));
    }
    panel.append(S.table([
      { title: 'Replica', value: (x) => el('code', { text: x.name }) },
      { title: 'Catalog', value: (x) => el('code', { text: x.catalog_version }) },
      { title: 'Up', value: (x) => S.fmtMs(x.up_seconds * 1000), num: true },
      { title: 'Last heartbeat', value: (x) => `${Math.round(x.seen_seconds_ago)} s ago` },
      { title: 'State', value: (x) => (x.draining ? 'draining' : 'serving') },
    ], fleet.replicas, { empty: 'No heartbeat yet (replicas write one every 5 s when they have a database).' }));
    panel.append(el('p', { class: 'muted', text: 'Per replica, not shared: breaker states, requests in flight, the body budget, connection caps, the sign-in throttle. Shared through PostgreSQL: keys, sessions, quotas, the audit trail, stored responses.' }));
    panel.append(el('h2', { text: `Quotas (mode: ${data.quotas.mode})` }), S.table([
      { title: 'Window', value: (w) => el('code', { text: w.id }) },
      { title: 'Per', value: (w) => w.per },
      { title: 'Length', value: (w) => (w.seconds >= 86400 ? w.seconds / 86400 + ' d' : w.seconds / 3600 + ' h'), num: true },
      { title: 'Max requests', value: (w) => S.fmtInt(w.max_requests), num: true },
      { title: 'Max input tokens', value: (w) => S.fmtInt(w.max_input_tokens), num: true },
      { title: 'Max output tokens', value: (w) => S.fmtInt(w.max_output_tokens), num: true },
      { title: 'Max cost', value: (w) => (w.max_cost_microdollars ? S.fmtUsd(w.max_cost_microdollars) : S.none), num: true },
    ], data.quotas.windows, { empty: 'No quota windows declared.' }));
    panel.append(el('p', {}, 'Access rules (policies): ', el('a', { href: '/admin/access-control', text: 'Access control' })));
  }

  S.start(async (app) => {
    S.tabs(app, [
      { id: 'overview', title: 'Overview', render: overview },
      { id: 'providers', title: 'Providers', render: providers },
      { id: 'routes', title: 'Routes', render: routes },
      { id: 'settings', title: 'Settings', render: settings },
    ]);
  });
})();
