// /admin/access-control: the rules per entity, and "check a member".
'use strict';
(function () {
  const S = window.Sluice;
  const el = S.el;
  const bands = (b) => ['person', 'project', 'group', 'role'].filter((k) => b[k].length).map((k) => `${k}: ${b[k].join(', ')}`).join('; ') || S.none;

  S.start(async (app) => {
    const { data } = await S.api('/admin/api/access');
    const result = el('div', { id: 'access-result', 'aria-live': 'polite' });
    const member = el('select', { name: 'user', id: 'check-user' }, data.members.map((m) => el('option', { value: m.name }, m.name + (m.disabled ? ' (disabled)' : ''))));
    const project = el('input', { name: 'project', id: 'check-project', placeholder: 'their primary project' });
    const form = el('form', { class: 'filters', id: 'check-form' },
      el('label', {}, 'Member', member), el('label', {}, 'Project (optional)', project), el('button', { type: 'submit' }, 'Check'));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const query = new URLSearchParams({ user: member.value });
      if (project.value.trim()) query.set('project', project.value.trim());
      try {
        const { data: c } = await S.api('/admin/api/access/check?' + query);
        result.replaceChildren(
          el('p', {}, el('b', { text: c.user }), ` (${c.role}; groups ${c.groups.join(', ') || 'none'}) attributed to project `,
            el('b', { text: c.project || 'none' }), ` (${c.project_source})`, c.disabled ? el('span', { class: 'bad', text: ' — disabled: every key is refused' }) : ''),
          S.table([
            { title: 'Route', value: (r) => el('span', {}, el('code', { text: r.route }), ' ', el('span', { class: 'muted', text: r.kind })) },
            { title: 'Models', value: (r) => r.models.join(', ') },
            { title: 'May use', value: (r) => el('span', { class: r.allowed ? 'good' : 'bad', text: r.allowed ? 'allowed' : 'denied' }) },
            { title: 'Rule', value: (r) => r.entity || 'none (open)' },
            { title: 'Decided by', value: (r) => el('code', { text: r.basis }) },
            { title: 'Why', value: (r) => r.why || S.none },
          ], c.routes, { attrs: { id: 'check-table' } }));
      } catch (error) {
        result.replaceChildren(el('p', { class: 'error', role: 'alert', text: error.message }));
      }
    });
    app.replaceChildren(
      el('p', { class: 'muted' }, 'From services/access-control/rules.yaml. A route without a rule of its own falls under ',
        el('code', { text: 'gateway_route/*' }), '; inside a rule the narrowest matching band decides (person, project, group, role), deny beating allow; otherwise the default.'),
      el('h2', { text: 'Rules' }),
      S.table([
        { title: 'Entity', value: (r) => el('code', { text: r.entity }) },
        { title: 'Default', value: (r) => el('span', { class: r.default === 'open' ? 'good' : 'bad', text: r.default }) },
        { title: 'Allow', value: (r) => bands(r.allow) },
        { title: 'Deny', value: (r) => bands(r.deny) },
        { title: 'Why', value: (r) => r.why || S.none },
        { title: 'Declared at', value: (r) => r.where },
      ], data.rules, { empty: 'No rules: every route is open to every member.' }),
      el('h2', { text: 'Check a member' }), form, result);
  });
})();
