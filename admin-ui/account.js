// /admin/account: a member's own account, for every signed-in member: who they are, their usage
// against the quota windows they spend from, their API keys (create: shown once; revoke) and their
// personal provider credentials (set or replace; never shown). Every change is a POST with the
// session's CSRF token (console.js S.api), made by the server for the signed-in member only
// (server/admin/account_api.cc).
'use strict';
(function () {
  const S = window.Sluice;
  const el = S.el;

  function usageLine(entry) {
    const parts = S.usageParts(entry, 'span', { class: 'usage-part' });
    const whose = entry.scope_kind === 'user' ? 'you' : `${entry.scope_kind} ${entry.scope_value}`;
    return el('li', { 'data-window': entry.window_id }, el('b', { text: entry.window_id }), ` (${whose})`,
      entry.window_end ? ` until ${entry.window_end}: ` : ': ', entry.unlimited ? 'unlimited' : parts.length ? parts : 'nothing spent yet');
  }

  S.start(async (app) => {
    const status = el('p', { id: 'account-status', role: 'status', class: 'muted' });
    const secret = el('div', { id: 'new-key-box', class: 'banner', hidden: true });
    const body = el('div', {});
    app.replaceChildren(status, secret, body);

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
      await draw();
      status.className = 'good';
      status.textContent = done(reply.data);
      return reply.data;
    }

    async function draw() {
      const { data: me } = await S.api('/admin/api/me');
      const keyRows = me.keys.map((key) => el('tr', { 'data-key': key.id },
        el('td', {}, el('code', { text: key.prefix })), el('td', { text: key.name || S.none }), el('td', { text: key.project || S.none }),
        el('td', { text: key.status }), el('td', { text: key.created_at }), el('td', { text: key.expires_at || 'never' }),
        el('td', { text: key.last_used_at || S.none }),
        el('td', {}, key.status === 'active' ? el('button', { type: 'button', class: 'secondary key-revoke', onclick: async () => {
          if (!confirm(`Revoke ${key.prefix}? Clients using it stop working within seconds.`)) return;
          await change('/admin/api/me/keys/revoke', { id: key.id }, () => `Revoked ${key.prefix}.`);
        } }, 'Revoke') : '')));
      const name = el('input', { id: 'key-name', maxlength: 64, placeholder: 'laptop' });
      const project = el('select', { id: 'key-project' }, el('option', { value: '' }, me.primary_project ? `default (${me.primary_project})` : 'none'),
        me.projects.map((p) => el('option', { value: p }, p)));
      const days = el('input', { id: 'key-days', type: 'number', min: 1, max: 3650, value: 90 });
      const createForm = el('form', { id: 'key-create', class: 'filters' },
        el('label', {}, 'Name', name), el('label', {}, 'Project', project), el('label', {}, 'Expires in (days)', days),
        el('button', { type: 'submit', id: 'key-submit' }, 'Create key'));
      createForm.addEventListener('submit', async (event) => {
        event.preventDefault();
        const payload = { name: name.value.trim() };
        if (project.value) payload.project = project.value;
        if (days.value) payload.expires_days = Number(days.value);
        const created = await change('/admin/api/me/keys/create', payload, (d) => `Created ${d.prefix}. Copy the key now: it is shown once.`);
        if (created) {
          secret.hidden = false;
          secret.replaceChildren(el('p', {}, el('b', { text: 'Your new key (shown once): ' })), S.codeBlock(created.key, 'New API key'),
            el('button', { type: 'button', class: 'secondary', onclick: () => { secret.replaceChildren(); secret.hidden = true; } }, 'I have copied it'));
        }
      });

      const credentialRows = me.personal_credentials.map((c) => el('tr', { 'data-credential': c.credential },
        el('td', {}, el('code', { text: c.credential })), el('td', { text: c.set ? 'set' : 'not set' }), el('td', { text: c.updated_at || S.none })));
      const credential = el('select', { id: 'credential-id' }, me.personal_credentials.map((c) => el('option', { value: c.credential }, c.credential)));
      const value = el('input', { id: 'credential-secret', type: 'password', autocomplete: 'off', placeholder: 'the provider key' });
      const credentialForm = el('form', { id: 'credential-set', class: 'filters' },
        el('label', {}, 'Credential', credential), el('label', {}, 'Secret', value), el('button', { type: 'submit' }, 'Save'));
      credentialForm.addEventListener('submit', async (event) => {
        event.preventDefault();
        const sent = value.value;
        value.value = '';
        await change('/admin/api/me/credentials/set', { credential: credential.value, secret: sent },
          (d) => `${d.replaced ? 'Replaced' : 'Stored'} your ${d.credential} key (sealed; it is never shown again).`);
      });

      body.replaceChildren(
        el('section', { id: 'account-who' },
          el('p', {}, el('b', { text: me.name }), ` · ${me.role}`, me.source ? ` · made by ${me.source}` : '',
            me.groups.length ? ` · groups: ${me.groups.join(', ')}` : '', me.projects.length ? ` · projects: ${me.projects.join(', ')}` : ''),
          el('p', {}, el('a', { href: '/admin/requests', text: 'Your requests' }), ' · ', el('a', { href: '/admin/connect', text: 'Connect your coding agents' }))),
        el('h2', { text: 'Your usage' }),
        me.limits.length ? el('ul', { id: 'account-usage' }, me.limits.map(usageLine))
          : el('p', { class: 'muted', id: 'account-usage', text: `No quota window applies to you (quotas: ${me.quota_mode}).` }),
        el('h2', { text: 'Your API keys' }),
        me.keys.length ? el('table', { id: 'account-keys' }, el('thead', {}, el('tr', {}, ['Key', 'Name', 'Project', 'Status', 'Created', 'Expires', 'Last used', ''].map((t) => el('th', { text: t })))),
          el('tbody', {}, keyRows)) : el('p', { class: 'muted', id: 'account-keys', text: 'You have no API key yet.' }),
        createForm,
        el('h2', { text: 'Your provider credentials' }),
        me.personal_credentials.length ? el('div', { id: 'account-credentials-box' },
          el('table', { id: 'account-credentials' }, el('thead', {}, el('tr', {}, ['Credential', 'Status', 'Updated'].map((t) => el('th', { text: t })))),
            el('tbody', {}, credentialRows)),
          me.personal_credentials_available ? credentialForm : el('p', { class: 'muted', text: 'This gateway has no master key: personal credentials cannot be stored.' }),
        ) : el('p', { class: 'muted', text: 'The catalog declares no personal credential.' }));
    }
    await draw();
  });
})();
