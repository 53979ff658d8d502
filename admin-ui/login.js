'use strict';
(function () {
  const form = document.getElementById('login-form');
  const error = document.getElementById('login-error');
  const nextParam = new URLSearchParams(location.search).get('next');
  const next = nextParam && nextParam.startsWith('/admin/') && !nextParam.startsWith('//') ? nextParam : null;
  // Single sign-on comes back to the page the sign-in was asked from.
  const sso = document.getElementById('sso-sign-in');
  if (sso && next) sso.href = '/admin/oidc/start?next=' + encodeURIComponent(next);
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
      const answer = await reply.json();
      location.href = next || answer.home || '/admin/gateway';
      return;
    }
    let message = reply.status + ' ' + reply.statusText;
    try { message = (await reply.json()).error.message; } catch (_) { /* keep the status */ }
    error.textContent = (reply.status === 403 ? 'Refused: ' : 'Sign-in failed: ') + message;
    error.hidden = false;
  });
})();
