// /admin/mcp: the MCP servers (docs/mcp.md), who may call what, and the calls per tool.
'use strict';
(function () {
  const S = window.Sluice;
  const el = S.el;
  const bands = (b) => ['person', 'project', 'group', 'role'].filter((k) => b[k].length).map((k) => `${k}: ${b[k].join(', ')}`).join('; ') || S.none;
  const verdict = (allowed) => el('span', { class: allowed ? 'good' : 'bad', text: allowed ? 'allowed' : 'denied' });

  function serversTable(servers, withMember) {
    const columns = [
      { title: 'Server', value: (s) => el('span', {}, el('b', { text: s.name }), ' ', el('code', { text: s.path })) },
      { title: 'Upstream', value: (s) => el('code', { text: s.url }) },
      { title: 'Trust', value: (s) => s.trust + (s.masked ? ' (arguments masked)' : '') },
      { title: 'Credential', value: (s) => s.credential ? `${s.credential} (${s.paid_by}), sent as ${s.auth_header}` : S.none },
      { title: 'Rules', value: (s) => s.rules.length ? el('ul', {}, s.rules.map((r) => el('li', {},
        el('code', { text: r.entity }), ` ${r.default}; allow ${bands(r.allow)}; deny ${bands(r.deny)}`, r.why ? ` — ${r.why}` : ''))) : 'none (open)' },
    ];
    if (withMember) {
      columns.push({ title: 'This member', value: (s) => el('span', {}, verdict(s.member.allowed), ' ', el('code', { text: s.member.basis })) });
    }
    return S.table(columns, servers, { attrs: { id: 'mcp-servers' }, empty: 'No MCP server is declared (an endpoint with wire: mcp).' });
  }

  function toolsTable(tools, withMember) {
    const columns = [
      { title: 'Server', value: (t) => el('code', { text: t.server }) },
      { title: 'Tool', value: (t) => el('code', { text: t.tool }) },
      { title: 'Calls', value: (t) => String(t.calls) },
      { title: 'Refused', value: (t) => String(t.refused) },
      { title: 'Failed', value: (t) => String(t.failed) },
      { title: 'Median', value: (t) => t.p50_ms === null ? S.none : `${Math.round(t.p50_ms)} ms` },
    ];
    if (withMember) columns.push({ title: 'This member', value: (t) => verdict(t.member_may_call) });
    return S.table(columns, tools, { attrs: { id: 'mcp-tools' }, empty: 'No tool calls in the last 7 days.' });
  }

  S.start(async (app) => {
    const { data } = await S.api('/admin/api/mcp');
    const result = el('div', { id: 'mcp-member', 'aria-live': 'polite' });
    const member = el('select', { name: 'user', id: 'mcp-user' }, data.members.map((m) => el('option', { value: m }, m)));
    const project = el('input', { name: 'project', id: 'mcp-project', placeholder: 'their primary project' });
    const form = el('form', { class: 'filters', id: 'mcp-form' },
      el('label', {}, 'Member', member), el('label', {}, 'Project (optional)', project), el('button', { type: 'submit' }, 'Check'));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const query = new URLSearchParams({ user: member.value });
      if (project.value.trim()) query.set('project', project.value.trim());
      try {
        const { data: c } = await S.api('/admin/api/mcp?' + query);
        result.replaceChildren(
          el('p', {}, el('b', { text: c.member.user }), ' attributed to project ', el('b', { text: c.member.project || 'none' })),
          serversTable(c.servers, true), toolsTable(c.tools, true));
      } catch (error) {
        result.replaceChildren(el('p', { class: 'error', role: 'alert', text: error.message }));
      }
    });
    app.replaceChildren(
      el('p', { class: 'muted' }, 'Servers are provider endpoints with ', el('code', { text: 'wire: mcp' }),
        ', served at /mcp/<server> and, together, at /mcp. Access: ', el('code', { text: 'mcp_server/<server>' }), ' and ',
        el('code', { text: 'mcp_tool/<server>/<tool>' }), ' in rules.yaml.'),
      el('h2', { text: 'Servers' }), serversTable(data.servers, false),
      el('h2', { text: 'Calls per tool (7 days)' }), toolsTable(data.tools, false),
      el('h2', { text: 'Who may call what' }), form, result);
  });
})();
