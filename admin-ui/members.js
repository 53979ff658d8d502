// /admin/members: members, their keys (prefixes), personal credentials set or not, quota usage.
'use strict';
(function () {
  const S = window.Sluice;
  const el = S.el;

  function usage(counter) {
    const parts = [];
    for (const [field, label, fmt] of [['requests', 'requests', S.fmtInt], ['input_tokens', 'input tokens', S.fmtInt],
      ['output_tokens', 'output tokens', S.fmtInt], ['cost_microdollars', 'cost', S.fmtUsd]]) {
      const ceiling = counter.ceilings ? counter.ceilings[field] : undefined;
      if (ceiling === undefined && !counter[field]) continue;
      const share = ceiling ? counter[field] / ceiling : null;
      parts.push(el('div', {}, `${label}: ${fmt(counter[field])}`, ceiling !== undefined ? ` of ${fmt(ceiling)} ` : ' ',
        share !== null ? el('span', { class: share >= 1 ? 'bad' : share >= 0.8 ? 'warnc' : 'good', text: `(${S.fmtPct(share)})` }) : ''));
    }
    return el('div', {}, el('b', { text: counter.window_id }), ` until ${counter.window_end}`, parts);
  }

  S.start(async (app) => {
    const { data } = await S.api('/admin/api/members');
    app.replaceChildren(
      el('p', { class: 'muted' }, 'Add members and keys with ', el('code', { text: 'sluicectl users add' }), ' and ',
        el('code', { text: 'sluicectl keys create' }), `. Quota mode: ${data.quota_mode}.`),
      S.table([
        { title: 'Member', value: (m) => el('span', {}, el('b', { text: m.name }), m.disabled ? el('span', { class: 'bad', text: ' disabled' }) : '') },
        { title: 'Role', value: (m) => m.role },
        { title: 'Groups', value: (m) => m.groups.join(', ') || S.none },
        { title: 'Projects', value: (m) => m.projects.map((p) => (p === m.primary_project ? p + ' (primary)' : p)).join(', ') || S.none },
        { title: 'API keys', value: (m) => (m.keys.length ? el('ul', {}, m.keys.map((k) => el('li', {}, el('code', { text: k.prefix }),
          ` ${k.status}`, k.name ? ` · ${k.name}` : '', k.project ? ` · ${k.project}` : '',
          el('span', { class: 'muted', text: ` · last used ${k.last_used_at ? S.fmtTime(k.last_used_at) : 'never'}` })))) : S.none) },
        { title: 'Personal credentials', value: (m) => (m.personal_credentials.length ? el('ul', {}, m.personal_credentials.map((c) =>
          el('li', {}, el('code', { text: c.credential }), ' ', el('span', { class: c.set ? 'good' : 'muted', text: c.set ? 'set' : 'not set' })))) : S.none) },
        { title: 'Quota usage (current windows)', value: (m) => (m.quota.length ? m.quota.map(usage) : el('span', { class: 'muted', text: 'none counted' })) },
      ], data.members, { attrs: { id: 'members-table' }, rowAttrs: (m) => ({ 'data-member': m.name }) }),
      el('h2', { text: 'Every current quota counter' }),
      S.table([
        { title: 'Scope', value: (c) => `${c.scope_kind} ${c.scope_value}` },
        { title: 'Usage', value: usage },
      ], data.quota_counters.filter((c) => c.scope_kind !== 'user'), { empty: 'No project, key or organisation counter in a current window.' }));
  });
})();
