// Single sign-on in headless Chromium against a real OpenID Provider: npm `oidc-provider` (a
// certified implementation) with its development login and consent pages, started here on port 0
// as http://127.0.0.1:<port>. The gateway (lib/stack.mjs) has gateway.console.oidc pointing at it,
// with groups_claim `groups`, admin_groups [platform-admins] and provision on.
//
// Refusals count against the console's sign-in throttle (5 a minute per address), so the tests
// that are refused come last.
//
// Covered: a first sign-in makes the member (SSO), admin by group, a member's view holds only their
// own rows and keys, sign-out, leaving the admin group demotes at the next sign-in and an open
// session at its next check, a replayed state (with and without the browser's cookie), a token
// for another audience and an expired one (re-signed with the provider's own key by a middleware on
// its token endpoint), a signing key rotated to ES256 under a new kid, and no code, token or secret
// in the gateway's logs or on its pages.

import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import * as jose from 'jose';
import Provider from 'oidc-provider';

import { launchBrowser, pageProblems, shots, until } from './lib/browser.mjs';
import { startStack } from './lib/stack.mjs';

const CLIENT_SECRET = 'sso-client-secret-' + crypto.randomBytes(8).toString('hex');

let stack;
let browser;
let opServer;
let opUrl;
let provider;
let signingKey;  // the provider's current private key (jose KeyLike) and its header
let tamper = null;  // (claims) => changes to the ID token the token endpoint answers
const seen = { codes: [], tokens: [] };

// Who may sign in at the provider, with the claims it gives.
const accounts = {
  bob: { email: 'Bob@Example.com', name: 'Bob Builder', groups: ['engineering'] },
  ada: { email: 'ada@example.com', name: 'Ada Admin', groups: ['platform-admins', 'engineering'] },
  eve: { email: 'eve@example.com', name: 'Eve', groups: ['engineering'] },
};

async function newProvider({ alg, kid }) {
  const { privateKey } = alg === 'ES256'
    ? crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' })
    : crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, use: 'sig', alg };
  signingKey = { key: await jose.importJWK(jwk, alg), alg, kid };
  const instance = new Provider(opUrl, {
    clients: [{
      client_id: 'sluice',
      client_secret: CLIENT_SECRET,
      redirect_uris: [`${stack.url}/admin/oidc/callback`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: alg,
    }],
    jwks: { keys: [jwk] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    findAccount: async (ctx, id) => (accounts[id] ? {
      accountId: id,
      claims: async () => ({ sub: id, email: accounts[id].email, email_verified: true, name: accounts[id].name, groups: accounts[id].groups }),
    } : undefined),
    features: { devInteractions: { enabled: true } },
  });
  // The token endpoint's answer, seen (to prove none of it is logged) and, when a test asks,
  // re-signed with the provider's own key after a change to its claims.
  instance.use(async (ctx, next) => {
    await next();
    if (ctx.path !== '/token' || ctx.method !== 'POST' || !ctx.body || !ctx.body.id_token) return;
    seen.tokens.push(ctx.body.id_token, ctx.body.access_token);
    if (!tamper) return;
    const claims = { ...jose.decodeJwt(ctx.body.id_token), ...tamper(jose.decodeJwt(ctx.body.id_token)) };
    const idToken = await new jose.SignJWT(claims).setProtectedHeader({ alg: signingKey.alg, kid: signingKey.kid, typ: 'JWT' })
      .sign(signingKey.key);
    seen.tokens.push(idToken);
    ctx.body = { ...ctx.body, id_token: idToken };
  });
  return instance;
}

// A fresh browser (no provider session, no console cookie) signing in as `login`. Resolves with the
// page on the console page it landed on, or on the refusal.
async function ssoSignIn(login, { next = '' } = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/admin/oidc/callback' && url.searchParams.get('code')) seen.codes.push(url.searchParams.get('code'));
  });
  await page.goto(`${stack.url}/admin/login${next ? '?next=' + encodeURIComponent(next) : ''}`);
  assert.equal(await page.textContent('#sso-sign-in'), 'Sign in with Test IdP');
  await page.click('#sso-sign-in');
  await page.waitForSelector('input[name=login]');
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any password');
  await page.click('button.login-submit');
  await page.waitForSelector('input[name=prompt][value=consent], #sign-in-refused, body[data-page]', { state: 'attached' });
  if (await page.$('input[name=prompt][value=consent]')) await page.click('button.login-submit');
  await page.waitForSelector('#sign-in-refused, body[data-page]:not([data-page=login])', { state: 'attached' });
  return { context, page };
}

async function pageApi(page, apiPath, options = {}) {
  return page.evaluate(async ([p, o]) => {
    const init = { method: o.method || 'GET', headers: { Accept: 'application/json' } };
    if (o.body) {
      init.headers['Content-Type'] = 'application/json';
      init.headers['X-CSRF-Token'] = window.Sluice.session.csrf;
      init.body = JSON.stringify(o.body);
    }
    const reply = await fetch(p, init);
    return { status: reply.status, body: await reply.json().catch(() => null) };
  }, [apiPath, options]);
}

describe('console single sign-on with a real OpenID Provider', () => {
  before(async () => {
    opServer = http.createServer((req, res) => provider.callback()(req, res));
    await new Promise((resolve) => opServer.listen(0, '127.0.0.1', resolve));
    opUrl = `http://127.0.0.1:${opServer.address().port}`;
    stack = await startStack({
      gatewayYaml: [
        '  console:',
        '    oidc:',
        `      issuer: ${opUrl}`,
        '      client_id: sluice',
        '      client_secret: env:SLUICE_OIDC_CLIENT_SECRET',
        '      scopes: [openid, email, profile, groups]',
        '      member_claim: email',
        '      groups_claim: groups',
        '      admin_groups: [platform-admins]',
        '      provision: true',
        '      display_name: Test IdP',
        '',
      ].join('\n'),
      env: { SLUICE_OIDC_CLIENT_SECRET: CLIENT_SECRET },
    });
    provider = await newProvider({ alg: 'RS256', kid: 'rsa-1' });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
    await new Promise((resolve) => (opServer ? opServer.close(resolve) : resolve()));
  });

  test('a first sign-in makes a member; a member sees their own account, keys and requests only', async () => {
    const { context, page } = await ssoSignIn('bob');
    assert.equal(await page.getAttribute('body', 'data-page'), 'account');
    assert.equal(await page.getAttribute('body', 'data-role'), 'member');
    await page.waitForSelector('#account-who b');
    assert.equal(await page.textContent('#account-who b'), 'bob@example.com');
    assert.match(await page.textContent('#account-who'), /member · made by sso · groups: engineering/);
    const navs = await page.$$eval('nav [data-nav]', (links) => links.map((a) => a.dataset.nav));
    assert.deepEqual(navs, ['requests', 'account', 'connect']);
    // A key of their own, shown once, works on /v1.
    await page.fill('#key-name', 'laptop');
    await page.click('#key-submit');
    await page.waitForSelector('#new-key-box:not([hidden]) pre');
    const key = (await page.textContent('#new-key-box pre')).trim();
    assert.match(key, /^sk-sluice-/);
    const served = await stack.message(key, 'claude-sonnet-5-5', 'hello from bob');
    assert.equal(served.status, 200, JSON.stringify(served.body));
    await stack.message(stack.adminKey, 'claude-sonnet-5-5', 'hello from root');
    // Rows are written a moment after the answer (the audit writer batches them).
    const mine = await until(async () => {
      const reply = await pageApi(page, '/admin/api/requests?user=root&since=1h');
      return reply.status === 200 && reply.body.requests.length >= 1 ? reply : null;
    }, 'bob\'s request in his list');
    assert.ok(mine.body.requests.every((r) => r.user_name === 'bob@example.com'), JSON.stringify(mine.body.requests.map((r) => r.user_name)));
    for (const adminOnly of ['/admin/api/members', '/admin/api/gateway/overview', '/admin/api/members/history']) {
      assert.equal((await pageApi(page, adminOnly)).status, 403, adminOnly);
    }
    const rootRequest = (await stack.message(stack.adminKey, 'claude-sonnet-5-5', 'another from root')).id;
    assert.equal((await pageApi(page, `/admin/api/requests/${rootRequest}`)).status, 404);
    assert.deepEqual(await pageProblems(page), []);
    await page.screenshot({ path: path.join(shots, 'sso-member-account.png'), fullPage: true });
    // Sign-out ends the session.
    await page.click('#sign-out');
    await page.waitForURL((u) => u.pathname === '/admin/login');
    assert.equal((await pageApi(page, '/admin/api/session')).status, 401);
    await context.close();
  });

  test('membership of an admin group makes an admin; leaving it demotes at the next sign-in and at the open session\'s next check', async () => {
    const first = await ssoSignIn('ada', { next: '/admin/members' });
    assert.equal(await first.page.getAttribute('body', 'data-page'), 'members');
    await first.page.waitForSelector('#members-table tr[data-member="bob@example.com"]');
    assert.ok(await first.page.$('nav [data-nav=members]'));
    accounts.ada.groups = ['engineering'];
    const second = await ssoSignIn('ada');
    assert.equal(await second.page.getAttribute('body', 'data-page'), 'account');
    assert.match(await second.page.textContent('#account-who'), /ada@example\.com · member/);
    // The first browser's session is still open: its next check (every 2 s) sees the member demoted.
    await until(async () => (await pageApi(first.page, '/admin/api/members')).status === 403, 'the open admin session to be demoted');
    const session = await pageApi(first.page, '/admin/api/session');
    assert.equal(session.body.admin, false);
    await first.context.close();
    await second.context.close();
    accounts.ada.groups = ['platform-admins', 'engineering'];
  });

  test('a signing key rotated to ES256 under a new kid is fetched and accepted', async () => {
    provider = await newProvider({ alg: 'ES256', kid: 'ec-2' });
    const { context, page } = await ssoSignIn('eve');
    assert.equal(await page.getAttribute('body', 'data-page'), 'account', await page.textContent('body'));
    assert.equal(jose.decodeProtectedHeader(seen.tokens.filter((t) => t && t.split('.').length === 3).at(-1)).alg, 'ES256');
    await context.close();
  });

  test('a replayed callback is refused, with or without the browser\'s cookie', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15000);
    let callback = null;
    let flowCookie = null;
    page.on('request', async (request) => {
      if (new URL(request.url()).pathname !== '/admin/oidc/callback') return;
      callback = request.url();
      const cookies = (await request.allHeaders()).cookie || '';
      flowCookie = /sluice_oidc=([^;]+)/.exec(cookies)?.[1] || flowCookie;
    });
    await page.goto(`${stack.url}/admin/login`);
    await page.click('#sso-sign-in');
    await page.fill('input[name=login]', 'eve');
    await page.fill('input[name=password]', 'x');
    await page.click('button.login-submit');
    await page.waitForSelector('input[name=prompt][value=consent]', { state: 'attached' });
    await page.click('button.login-submit');
    await page.waitForSelector('body[data-page=account]');
    assert.ok(callback && flowCookie);
    await page.goto(callback);
    assert.match(await page.textContent('#sign-in-refused'), /did not start this sign-in/);
    await context.addCookies([{ name: 'sluice_oidc', value: flowCookie, url: `${stack.url}/admin/oidc/` }]);
    await page.goto(callback);
    assert.match(await page.textContent('#sign-in-refused'), /already used/);
    await context.close();
  });

  test('a token for another audience and an expired token are refused, saying why', async () => {
    tamper = () => ({ aud: 'another-client' });
    let attempt = await ssoSignIn('eve');
    assert.match(await attempt.page.textContent('#sign-in-refused'), /for another audience/);
    await attempt.context.close();
    const now = Math.floor(Date.now() / 1000);
    tamper = () => ({ exp: now - 3600, iat: now - 7200 });
    attempt = await ssoSignIn('eve');
    assert.match(await attempt.page.textContent('#sign-in-refused'), /has expired/);
    await attempt.context.close();
    tamper = () => ({ nonce: 'not-this-sign-in' });
    attempt = await ssoSignIn('eve');
    assert.match(await attempt.page.textContent('#sign-in-refused'), /nonce/);
    await attempt.page.screenshot({ path: path.join(shots, 'sso-refused.png'), fullPage: true });
    await attempt.context.close();
    tamper = null;
  });

  test('no code, token or secret reaches the gateway\'s logs', async () => {
    const logs = stack.gateway.stderr();
    assert.ok(seen.codes.length >= 5 && seen.tokens.length >= 5);
    for (const secret of [CLIENT_SECRET, ...seen.codes, ...seen.tokens.filter(Boolean)]) {
      assert.ok(!logs.includes(secret), 'a code, token or the client secret was logged');
      assert.ok(!logs.includes(secret.slice(0, 24)), 'part of a code, token or the client secret was logged');
    }
    assert.match(logs, /console sign-on refused/);
  });
});
