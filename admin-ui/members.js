// /admin/members: members (add, change, disable, enable), their keys (create: the key shown once;
// revoke), personal credentials set or not, quota usage, and the record of member and key changes.
// Every change is a POST with the session's CSRF token (console.js S.api); the server checks and
// records it (server/admin/member_changes_api.cc).
'use strict';
(function () {
  const S = window.Sluice;
  const el = S.el;

  function usage(counter) {
    const parts = S.usageParts(counter, 'div');
    const source = counter.limit_source === undefined ? ''
      : el('span', { class: 'muted limit-source', text: counter.limit_source === 'default' ? ' · the window\'s default' : ` · override ${counter.limit_source}` });
    return el('div', {}, el('b', { text: counter.window_id }), counter.window_end ? ` until ${counter.window_end}` : '', source, parts);
  }

  // One window a member spends from: whose counter, the limit that applies and why, what is spent.
  function limit(entry) {
    const whose = entry.scope_kind === 'user' ? '' : ` (${entry.scope_kind} ${entry.scope_value})`;
    return el('div', { class: 'member-limit', 'data-window': entry.window_id }, usage(entry),
      entry.unlimited ? el('span', { class: 'muted', text: 'unlimited' }) : '', whose ? el('span', { class: 'muted', text: whose }) : '');
  }

  // "a, b ,,c" -> ['a', 'b', 'c']
  const names = (text) => text.split(',').map((s) => s.trim()).filter(Boolean);
  const field = (label, input) => el('label', {}, label, input);
  const roleSelect = (id, role) => el('select', { id }, ['member', 'admin'].map((r) => el('option', { value: r, selected: r === role }, r)));

  S.start(async (app) => {
    const status = el('p', { id: 'members-status', role: 'status', class: 'muted' });
    const secret = el('div', { id: 'new-key-box', class: 'banner', hidden: true });
    const editor = el('div', { id: 'member-editor' });
    const body = el('div', {});

    // POSTs a change; on success says `done(reply)` and redraws, on refusal shows the server's reason.
    async function change(path, payload, done) {
      status.className = 'muted';
      status.textContent = 'Saving…';
      const reply = await S.api(path, { method: 'POST', body: payload, allowError: true });
      if (reply.status >= 400) {
        const error = reply.data && reply.data.error;
        status.className = 'error';
        status.textContent = 'Refused: ' + (error && error.message ? error.message : `the server answered ${reply.status}`);
        return null;
      }
      // The page is redrawn before the status says so: what the status reports is on the page.
      editor.replaceChildren();
      await draw();
      status.className = 'good';
      status.textContent = done(reply.data);
      return reply.data;
    }

    function showKey(created) {
      secret.hidden = false;
      secret.replaceChildren(
        el('p', {}, el('b', { text: `New key for ${created.user}` }), ' — shown this once: copy it now. The gateway keeps only its hash; ',
          'if it is lost, revoke it and make another.'),
        el('pre', { class: 'wrap', id: 'new-key', text: created.key }),
        el('button', { type: 'button', id: 'new-key-hide', onclick: () => { secret.hidden = true; secret.replaceChildren(); } }, 'I have copied it: hide'));
    }

    const addForm = el('form', { class: 'filters', id: 'member-add' },
      field('Name', el('input', { id: 'add-name', required: true, maxlength: 128, autocomplete: 'off' })),
      field('Role', roleSelect('add-role', 'member')),
      field('Groups (comma-separated)', el('input', { id: 'add-groups', autocomplete: 'off' })),
      field('Projects (comma-separated, the first is primary)', el('input', { id: 'add-projects', autocomplete: 'off' })),
      el('label', {}, el('input', { type: 'checkbox', id: 'add-allow-new' }), ' new group or project names'),
      el('button', { type: 'submit', id: 'add-submit' }, 'Add member'));
    addForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      const value = (id) => addForm.querySelector('#' + id).value;
      const added = await change('/admin/api/members/add', {
        name: value('add-name').trim(), role: value('add-role'), groups: names(value('add-groups')),
        projects: names(value('add-projects')), allow_new: addForm.querySelector('#add-allow-new').checked,
      }, (d) => `Added ${d.member.name} (${d.member.role}). Make them a key with “New key”.`);
      if (added) addForm.reset();
    });

    function editMember(m) {
      const form = el('form', { class: 'filters', id: 'member-edit', 'data-member': m.name },
        el('b', { text: `Change ${m.name}` }),
        field('Role', roleSelect('edit-role', m.role)),
        field('Groups', el('input', { id: 'edit-groups', value: m.groups.join(', '), autocomplete: 'off' })),
        field('Projects', el('input', { id: 'edit-projects', value: m.projects.join(', '), autocomplete: 'off' })),
        field('Primary project', el('input', { id: 'edit-primary', value: m.primary_project || '', autocomplete: 'off' })),
        el('label', {}, el('input', { type: 'checkbox', id: 'edit-allow-new' }), ' new group or project names'),
        el('button', { type: 'submit', id: 'edit-submit' }, 'Save'),
        el('button', { type: 'button', onclick: () => editor.replaceChildren() }, 'Cancel'));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const value = (id) => form.querySelector('#' + id).value;
        await change('/admin/api/members/update', {
          name: m.name, role: value('edit-role'), groups: names(value('edit-groups')), projects: names(value('edit-projects')),
          primary_project: value('edit-primary').trim(), allow_new: form.querySelector('#edit-allow-new').checked,
        }, (d) => `Saved ${d.member.name}: ${d.member.role}; groups ${d.member.groups.join(', ') || 'none'}; projects ${d.member.projects.join(', ') || 'none'}.`);
      });
      editor.replaceChildren(form);
      form.querySelector('#edit-role').focus();
    }

    function newKey(m) {
      const form = el('form', { class: 'filters', id: 'key-create', 'data-member': m.name },
        el('b', { text: `New key for ${m.name}` }),
        field('Label', el('input', { id: 'key-name', maxlength: 64, autocomplete: 'off' })),
        field('Project (optional)', el('select', { id: 'key-project' }, el('option', { value: '' }, 'the member’s primary'),
          m.projects.map((p) => el('option', { value: p }, p)))),
        field('Expires after days (optional)', el('input', { id: 'key-days', type: 'number', min: 1, max: 3650 })),
        el('button', { type: 'submit', id: 'key-submit' }, 'Create key'),
        el('button', { type: 'button', onclick: () => editor.replaceChildren() }, 'Cancel'));
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const days = form.querySelector('#key-days').value;
        const payload = { user: m.name, name: form.querySelector('#key-name').value.trim(), project: form.querySelector('#key-project').value };
        if (days) payload.expires_days = Number(days);
        const created = await change('/admin/api/keys/create', payload, (d) => `Created ${d.prefix} for ${d.user}.`);
        if (created) showKey(created);
      });
      editor.replaceChildren(form);
      form.querySelector('#key-name').focus();
    }

    // Revoking is final: the first click arms the button, the second revokes.
    function revokeButton(m, k) {
      const button = el('button', { type: 'button', class: 'key-revoke', 'data-key': k.prefix }, 'Revoke');
      button.addEventListener('click', async () => {
        if (button.dataset.armed !== 'yes') {
          button.dataset.armed = 'yes';
          button.textContent = 'Revoke for good?';
          return;
        }
        await change('/admin/api/keys/revoke', { id: k.prefix }, (d) => `Revoked ${d.prefix} of ${d.user}: it stops working within 5 seconds.`);
      });
      return button;
    }

    function actions(m) {
      const self = S.session && S.session.user === m.name;
      const toggle = m.disabled
        ? el('button', { type: 'button', class: 'member-enable', onclick: () => change('/admin/api/members/enable', { name: m.name },
          (d) => (d.changed ? `Enabled ${d.name}: their unrevoked keys work again within 5 seconds.` : `${d.name} was already enabled.`)) }, 'Enable')
        : el('button', { type: 'button', class: 'member-disable', disabled: self, title: self ? 'You cannot disable yourself' : null,
          onclick: () => change('/admin/api/members/disable', { name: m.name },
            (d) => (d.changed ? `Disabled ${d.name}: every key of theirs stops working within 5 seconds.` : `${d.name} was already disabled.`)) }, 'Disable');
      return el('div', { class: 'member-actions' },
        el('button', { type: 'button', class: 'member-edit', onclick: () => editMember(m) }, 'Change'), ' ', toggle, ' ',
        el('button', { type: 'button', class: 'key-new', onclick: () => newKey(m) }, 'New key'));
    }

    async function draw() {
      const [{ data }, { data: history }] = await Promise.all([S.api('/admin/api/members'), S.api('/admin/api/members/history')]);
      body.replaceChildren(
        S.table([
          { title: 'Member', value: (m) => el('span', {}, el('b', { text: m.name }), m.disabled ? el('span', { class: 'bad', text: ' disabled' }) : '') },
          { title: 'Role', value: (m) => m.role },
          { title: 'Groups', value: (m) => m.groups.join(', ') || S.none },
          { title: 'Projects', value: (m) => m.projects.map((p) => (p === m.primary_project ? p + ' (primary)' : p)).join(', ') || S.none },
          { title: 'API keys', value: (m) => (m.keys.length ? el('ul', {}, m.keys.map((k) => el('li', { 'data-key': k.prefix }, el('code', { text: k.prefix }),
            ` ${k.status}`, k.name ? ` · ${k.name}` : '', k.project ? ` · ${k.project}` : '',
            el('span', { class: 'muted', text: ` · last used ${k.last_used_at ? S.fmtTime(k.last_used_at) : 'never'}` }),
            k.status === 'active' ? [' ', revokeButton(m, k)] : ''))) : S.none) },
          { title: 'Personal credentials', value: (m) => (m.personal_credentials.length ? el('ul', {}, m.personal_credentials.map((c) =>
            el('li', {}, el('code', { text: c.credential }), ' ', el('span', { class: c.set ? 'good' : 'muted', text: c.set ? 'set' : 'not set' })))) : S.none) },
          { title: 'Limits that apply (current windows)', value: (m) => (m.limits.length ? m.limits.map(limit) : el('span', { class: 'muted', text: 'no quota window' })) },
          { title: 'Change', value: actions },
        ], data.members, { attrs: { id: 'members-table' }, rowAttrs: (m) => ({ 'data-member': m.name }) }),
        el('h2', { text: 'Every current quota counter' }),
        S.table([
          { title: 'Scope', value: (c) => `${c.scope_kind} ${c.scope_value}` },
          { title: 'Usage', value: usage },
        ], data.quota_counters.filter((c) => c.scope_kind !== 'user'), { empty: 'No project, key or organisation counter in a current window.' }),
        el('h2', { text: 'Member and key changes (newest 200)' }),
        S.table([
          { title: 'When', value: (e) => S.fmtTime(e.at) },
          { title: 'Who', value: (e) => e.actor },
          { title: 'Action', value: (e) => el('code', { text: e.action }) },
          { title: 'Member', value: (e) => e.member },
          { title: 'Detail', value: (e) => e.detail || S.none },
        ], history.events, { attrs: { id: 'member-history' }, empty: 'No member or key has been changed yet.' }));
      quotaMode.textContent = data.quota_mode;
    }

    const quotaMode = el('span', {});
    app.replaceChildren(
      el('p', { class: 'muted' }, 'Every change here is recorded below, under your name, as are those made with ',
        el('code', { text: 'sluicectl users' }), ' and ', el('code', { text: 'sluicectl keys' }), '. Quota mode: ', quotaMode, '.'),
      el('h2', { text: 'Add a member' }), addForm, status, secret, editor, body);
    await draw();
  });
})();
