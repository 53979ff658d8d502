// /admin/connect: ready-to-paste client configuration, for any member, with their own key.
'use strict';
(function () {
  const S = window.Sluice;
  const el = S.el;

  function render(box, p, key) {
    const fill = (text) => (key ? text.split('<your sk-sluice-... key>').join(key) : text);
    box.replaceChildren(
      el('p', {}, 'For ', el('b', { text: p.user }), ' at ', el('code', { text: p.base_url }), ` (catalog ${p.version}).`,
        key ? ' Your key is filled in below: treat these snippets as secrets.' : ' Replace the placeholder with your key.'),
      el('h2', { text: 'Claude Code' }),
      el('p', { class: 'muted', text: 'Models it lists: ' + (p.claude_code.models.map((m) => m.id).join(', ') || 'none advertised to Claude Code') }),
      el('h3', {}, 'In ', el('code', { text: '~/.claude/settings.json' }), ' (merge the ', el('code', { text: 'env' }), ' object into yours)'),
      S.codeBlock(fill(p.claude_code.settings_json), 'Claude Code settings.json'),
      el('h3', { text: 'Or in your shell profile' }),
      S.codeBlock(fill(p.claude_code.env), 'Claude Code environment'),
      el('h2', { text: 'Codex' }),
      el('p', { class: 'muted', text: '~/.codex/config.toml (Responses wire). Models: ' + (p.codex.models.map((m) => m.id).join(', ') || 'none advertised to Codex') }),
      S.codeBlock(p.codex.config_toml, 'Codex config.toml'), S.codeBlock(fill(p.codex.env), 'Codex environment'),
      el('h2', { text: 'OpenCode' }),
      el('p', { class: 'muted', text: 'opencode.json (with SLUICE_API_KEY in the environment).' }),
      S.codeBlock(p.opencode.config_json, 'OpenCode opencode.json'),
      ...(p.mcp ? [
        el('h2', { text: 'MCP tools' }),
        el('p', { class: 'muted' }, 'The MCP servers open to you (', p.mcp.servers.join(', '), ') as one server at ',
          el('code', { text: p.mcp.url }), ', tools named <server>__<tool>; each is also at ', el('code', { text: p.mcp.url + '/<server>' }), '.'),
        el('h3', { text: 'Claude Code' }), S.codeBlock(fill(p.mcp.claude_code), 'Claude Code MCP'),
        el('h3', {}, 'Codex (', el('code', { text: '~/.codex/config.toml' }), ')'), S.codeBlock(p.mcp.codex_toml, 'Codex MCP'),
        el('h3', {}, 'OpenCode (', el('code', { text: 'opencode.json' }), ')'), S.codeBlock(p.mcp.opencode_json, 'OpenCode MCP'),
      ] : []),
      el('h2', { text: 'SDKs and curl' }),
      el('h3', { text: 'Anthropic (Python)' }), S.codeBlock(fill(p.sdks.anthropic_python), 'Anthropic Python'),
      el('h3', { text: 'OpenAI (Python)' }), S.codeBlock(fill(p.sdks.openai_python), 'OpenAI Python'),
      el('h3', { text: 'curl' }), S.codeBlock(fill(p.sdks.curl), 'curl'),
      el('h2', { text: 'Every model' }),
      el('p', { id: 'models-filter' }, el('code', { text: 'GET /v1/models' }), ' answers each client with the models meant for it. ',
        'Claude Code, Codex and OpenCode, recognised by their User-Agent, see the models whose ', el('code', { text: 'clients:' }),
        ' (in ai/models.yaml) names them. Any other client (the OpenAI SDK, Open WebUI, LibreChat, curl) sees every model unless the catalog narrows what generic clients see. ',
        'The list only decides what a client offers you: any model below can be asked for by its id, listed or not (access rules still apply).'),
      S.table([
        { title: 'Model', value: (m) => el('code', { text: m.id }) },
        { title: 'Name', value: (m) => m.name },
        { title: 'clients:', value: (m) => m.clients.join(', ') },
        { title: 'Context window', value: (m) => S.fmtInt(m.context_window), num: true },
      ], p.models));
  }

  S.start(async (app) => {
    const box = el('div', { id: 'connect-profile' });
    const key = el('input', { type: 'password', id: 'connect-key', placeholder: 'sk-sluice-…', autocomplete: 'off' });
    const error = el('p', { class: 'error', role: 'alert', hidden: true });
    const form = el('form', { class: 'filters' }, el('label', {}, 'Your API key', key), el('button', { type: 'submit' }, 'Show my configuration'));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      error.hidden = true;
      const reply = await S.api('/admin/api/connect', { headers: { Authorization: 'Bearer ' + key.value.trim() }, allow401: true, allowError: true });
      if (reply.status !== 200) {
        error.textContent = (reply.data && reply.data.error && reply.data.error.message) || 'refused';
        error.hidden = false;
        return;
      }
      render(box, reply.data, key.value.trim());
    });
    app.replaceChildren(el('p', { class: 'muted', text: 'Open to every member. The key stays in this page (it is sent once to this gateway to check who you are).' }), form, error, box);
    if (S.session) {
      const { data } = await S.api('/admin/api/connect');
      render(box, data, '');
    }
  }, { open: true });
})();
