'use strict';
(function () {
  const form = document.getElementById('login-form');
  const error = document.getElementById('login-error');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.hidden = true;
    const key = document.getElementById('key').value.trim();
    const reply = await fetch('/admin/login', {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ key }),
    });
    if (reply.ok) {
      const next = new URLSearchParams(location.search).get('next');
      location.href = next && next.startsWith('/admin/') && !next.startsWith('//') ? next : '/admin/gateway';
      return;
    }
    let message = reply.status + ' ' + reply.statusText;
    try { message = (await reply.json()).error.message; } catch (_) { /* keep the status */ }
    error.textContent = (reply.status === 403 ? 'Refused: ' : 'Sign-in failed: ') + message;
    error.hidden = false;
  });
})();
