// The admin console in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core)
// against a PostgreSQL-backed gateway in front of the mock provider. Screenshots of every page go
// to $SLUICE_CONSOLE_SCREENSHOTS (default: <tests/console>/screenshots).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { launchBrowser, pageProblems, shots, until, walkConsole } from './lib/browser.mjs';
import { startInsecureGateway, startStack } from './lib/stack.mjs';

let stack;
let browser;
let page;

async function shot(name) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

// The console's own rendering of microdollars (admin-ui/console.js S.fmtUsd).
function S_usd(micros) {
  const usd = Number(micros) / 1e6;
  return '$' + (usd >= 100 ? usd.toFixed(2) : usd >= 1 ? usd.toFixed(3) : usd.toFixed(6));
}

describe('admin console', () => {
  before(async () => {
    stack = await startStack();
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(10000);
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  test('without a session pages redirect to the sign-in page and the API answers 401', async () => {
    const pageReply = await fetch(`${stack.url}/admin/gateway`, { redirect: 'manual' });
    assert.equal(pageReply.status, 302);
    assert.match(pageReply.headers.get('location'), /^\/admin\/login\?next=/);
    const apiReply = await fetch(`${stack.url}/admin/api/gateway/overview`);
    assert.equal(apiReply.status, 401);
    assert.match(pageReply.headers.get('content-security-policy') || '', /script-src 'self'/);
  });

  test('a member signs in with their key and sees their own account and requests, never the admin pages', async () => {
    const reply = await fetch(`${stack.url}/admin/login`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: stack.url }, body: JSON.stringify({ key: stack.memberKey }),
    });
    assert.equal(reply.status, 200);
    const signedIn = await reply.json();
    assert.equal(signedIn.admin, false);
    assert.equal(signedIn.home, '/admin/account');
    const cookie = reply.headers.get('set-cookie').split(';')[0];
    const get = (p) => fetch(`${stack.url}${p}`, { headers: { cookie }, redirect: 'manual' });
    for (const adminOnly of ['/admin/api/gateway/overview', '/admin/api/members', '/admin/api/analytics', '/admin/api/access',
      '/admin/api/requests/live', '/admin/api/routes/source']) {
      const refused = await get(adminOnly);
      assert.equal(refused.status, 403, adminOnly);
      assert.equal((await refused.json()).error.key, 'admin_only', adminOnly);
    }
    assert.equal((await get('/admin/members')).status, 403);
    // Another member's rows are out of reach, whatever the filter asks.
    const rows = await (await get('/admin/api/requests?user=root&since=30d')).json();
    assert.ok(rows.requests.every((r) => r.user_name === 'alice'), JSON.stringify(rows.requests.map((r) => r.user_name)));
    const me = await (await get('/admin/api/me')).json();
    assert.equal(me.name, 'alice');
    assert.equal(me.role, 'member');
    assert.ok(me.keys.every((k) => k.prefix.startsWith('sk-sluice-')));
    // A member cannot revoke or make keys for another member.
    const csrf = (await (await get('/admin/api/session')).json()).csrf;
    const post = (p, body) => fetch(`${stack.url}${p}`, {
      method: 'POST', headers: { cookie, origin: stack.url, 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify(body),
    });
    const forRoot = await post('/admin/api/me/keys/create', { user: 'root', name: 'stolen' });
    assert.equal(forRoot.status, 403);
    assert.equal((await post('/admin/api/keys/create', { user: 'root', name: 'stolen' })).status, 403);
    const rootKeyId = stack.adminKey.slice('sk-sluice-'.length, 'sk-sluice-'.length + 8);
    const revokeRoot = await post('/admin/api/me/keys/revoke', { id: rootKeyId });
    assert.equal(revokeRoot.status, 404);
    await post('/admin/logout', {});

    const behindTls = await fetch(`${stack.url}/admin/login`, {
      method: 'POST', headers: { 'content-type': 'application/json', origin: stack.url, 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ key: stack.adminKey }),
    });
    assert.equal(behindTls.status, 200);
    assert.match(behindTls.headers.get('set-cookie'), /^sluice_console=[0-9a-f]{64}; Path=\/admin; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
    await page.goto(`${stack.url}/admin/login`);
    await page.fill('#key', 'sk-sluice-notakey0notakey0notakey0notakey0');
    await page.click('button[type=submit]');
    await page.waitForSelector('#login-error:not([hidden])');
    assert.match(await page.textContent('#login-error'), /^Sign-in failed: /);
    await shot('login-refused');
  });

  test('an admin signs in and sees the gateway tabs with the shipped models', async () => {
    await page.goto(`${stack.url}/admin/gateway`);
    assert.match(page.url(), /\/admin\/login\?next=/);
    await page.fill('#key', stack.adminKey);
    await page.click('button[type=submit]');
    await page.waitForURL((url) => url.pathname === '/admin/gateway');
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'sluice_console');
    assert.ok(session && session.httpOnly && session.sameSite === 'Strict', 'HttpOnly SameSite=Strict cookie');
    await page.waitForSelector('[data-model="claude-sonnet-5-5"]');
    for (const model of ['claude-sonnet-5-5', 'gpt-5-5', 'gemini-3-flash', 'deepseek-v4-pro']) {
      assert.ok(await page.$(`[data-model="${model}"]`), `overview lists ${model}`);
    }
    assert.match(await page.textContent('[data-model="deepseek-v4-pro"]'), /deepseek\/api[\s\S]*opencode-go\/chat/);
    await shot('gateway-overview');
    await page.click('#tab-providers');
    await page.waitForSelector('[data-provider="anthropic"]');
    await shot('gateway-providers');
    await page.click('#tab-routes');
    await page.waitForSelector('#routes-table [data-route="go-deepseek-v4-pro"]');
    await page.waitForSelector('#route-editor');
    await shot('gateway-routes');
    await page.click('#tab-settings');
    await page.waitForSelector('#settings-version');
    assert.match(await page.textContent('#panel'), /claude-sonnet-5-5/);
    assert.match(await page.textContent('#panel'), /member-hourly/);
    await shot('gateway-settings');
  });

  test('state-changing calls without the CSRF token or from another origin are refused', async () => {
    const withoutToken = await page.evaluate(async () => {
      const r = await fetch('/admin/api/routes/validate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"x"}' });
      return { status: r.status, body: await r.json() };
    });
    assert.equal(withoutToken.status, 403);
    assert.equal(withoutToken.body.error.key, 'csrf_token_invalid');
    const cookie = (await page.context().cookies()).find((c) => c.name === 'sluice_console');
    const session = await (await fetch(`${stack.url}/admin/api/session`, { headers: { cookie: `sluice_console=${cookie.value}` } })).json();
    const foreign = await fetch(`${stack.url}/admin/api/routes/validate`, {
      method: 'POST',
      headers: { cookie: `sluice_console=${cookie.value}`, origin: 'http://evil.example', 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
      body: '{"text":"x"}',
    });
    assert.equal(foreign.status, 403);
    assert.equal((await foreign.json()).error.key, 'bad_origin');
  });

  test('gateway.yaml nested thousands deep is a diagnostic, and the gateway keeps serving', async () => {
    const cookie = (await page.context().cookies()).find((c) => c.name === 'sluice_console');
    const session = await (await fetch(`${stack.url}/admin/api/session`, { headers: { cookie: `sluice_console=${cookie.value}` } })).json();
    const headers = { cookie: `sluice_console=${cookie.value}`, origin: stack.url, 'x-csrf-token': session.csrf, 'content-type': 'application/json' };
    const flow = `gateway: ${'['.repeat(50000)}${']'.repeat(50000)}\n`;
    let block = '';
    for (let i = 0; i < 1000; i++) block += `${' '.repeat(i)}k:\n`;
    for (const text of [flow, block]) {
      const r = await fetch(`${stack.url}/admin/api/routes/validate`, { method: 'POST', headers, body: JSON.stringify({ text }) });
      assert.equal(r.status, 200);
      const body = await r.json();
      assert.equal(body.ok, false);
      // Warnings of the other files (an unconfigured cloud credential) may come first.
      assert.ok(body.diagnostics.some((d) => /deeper than 64 levels/.test(d.message)), JSON.stringify(body.diagnostics));
    }
    assert.equal((await fetch(`${stack.url}/healthz`)).status, 200);
  });

  test('a request through the gateway shows up in the list, live, and on its page with its failover', async () => {
    await page.goto(`${stack.url}/admin/requests`);
    await page.waitForSelector('#live-list');
    const plain = await stack.message(stack.memberKey, 'claude-sonnet-5-5');
    assert.equal(plain.status, 200);
    const failover = await stack.message(stack.memberKey, 'deepseek-flash');
    assert.equal(failover.status, 200, JSON.stringify(failover.body));
    await page.waitForSelector(`#live-list a[href="/admin/requests/${failover.id}"]`, { timeout: 15000 });
    await page.click('#filters button[type=submit]');
    await page.waitForSelector(`#requests-table a[href="/admin/requests/${plain.id}"]`);
    await shot('requests');
    const first = await page.evaluate(async () => (await fetch('/admin/api/requests?limit=1')).json());
    assert.equal(first.requests.length, 1);
    assert.ok(first.next_before, 'a cursor to the older page');
    const second = await page.evaluate(async (before) => (await fetch('/admin/api/requests?limit=1&before=' + before)).json(), first.next_before);
    assert.equal(second.requests.length, 1);
    assert.notEqual(second.requests[0].id, first.requests[0].id);
    const filtered = await page.evaluate(async () => (await fetch('/admin/api/requests?model=deepseek-flash')).json());
    assert.deepEqual(filtered.requests.map((r) => r.id), [failover.id]);
    await page.click(`#requests-table a[href="/admin/requests/${failover.id}"]`);
    await page.waitForSelector('#attempts');
    assert.match(await page.textContent('#served-provider'), /openai/);
    assert.match(await page.textContent('#served-provider'), /failover/);
    const attempts = await page.textContent('#attempts');
    assert.match(attempts, /deepseek[\s\S]*transport:connect[\s\S]*openai[\s\S]*ok/);
    // The request's trace, linked with gateway.telemetry.trace_url.
    const trace = await page.getAttribute('#trace-id', 'href');
    assert.match(trace, /^https:\/\/tempo\.example\.com\/trace\/[0-9a-f]{32}$/);
    assert.equal(await page.textContent('#trace-id'), trace.split('/').pop());
    await shot('request-failover');
  });

  test('a request to a public deployment shows what data protection masked, never the values', async () => {
    const masked = await stack.message(stack.memberKey, 'gpt-5-5', 'Write to ann.lee@example.com and bob@example.org, then ann.lee@example.com again');
    assert.equal(masked.status, 200, JSON.stringify(masked.body));
    const plain = await stack.message(stack.memberKey, 'claude-sonnet-5-5', 'Write to ann.lee@example.com');
    assert.equal(plain.status, 200);
    await until(async () => {
      const row = await page.evaluate(async (id) => (await fetch('/admin/api/requests/' + id)).json(), masked.id);
      return row.masked?.email === 3;
    }, 'the masked counts in the audit row');
    await page.goto(`${stack.url}/admin/requests/${masked.id}`);
    await page.waitForSelector('#masked');
    assert.equal(await page.textContent('#masked'), 'email 3');
    assert.doesNotMatch(await page.textContent('#main'), /ann\.lee@example\.com/);
    await shot('request-masked');
    await until(async () => {
      const row = await page.evaluate(async (id) => (await fetch('/admin/api/requests/' + id)).json(), plain.id);
      return row.id === plain.id;
    }, 'the trusted_raw request in the audit trail');
    await page.goto(`${stack.url}/admin/requests/${plain.id}`);
    await page.waitForSelector('#masked');
    assert.equal(await page.textContent('#masked'), 'nothing');
  });

  test('the route editor refuses an invalid change and applies a valid one that the next request follows', async () => {
    const file = path.join(stack.catalog, 'ai/gateway.yaml');
    const original = fs.readFileSync(file, 'utf8');
    await page.goto(`${stack.url}/admin/gateway#routes`);
    await page.waitForSelector('#route-editor');
    const invalid = original.replace('  routes:\n', '  routes:\n    - id: console-sonnet\n      alias: no-such-model\n');
    await page.fill('#route-editor', invalid);
    await page.click('#editor-save');
    await page.waitForSelector('#editor-diagnostics li');
    assert.match(await page.textContent('#editor-diagnostics'), /no-such-model/);
    assert.match(await page.textContent('#editor-status'), /Not saved/);
    assert.equal(fs.readFileSync(file, 'utf8'), original, 'an invalid change is never written');
    await shot('route-editor-invalid');

    const valid = original.replace('  routes:\n', '  routes:\n    # added from the console\n    - id: console-sonnet\n      label: Sonnet, named by the console test\n      alias: claude-sonnet-5-5\n');
    await page.fill('#route-editor', valid);
    await page.click('#editor-save');
    await page.waitForSelector('#editor-status.good');
    assert.match(await page.textContent('#editor-status'), /Saved/);
    assert.equal(fs.readFileSync(file, 'utf8'), valid);
    await page.waitForSelector('#routes-table [data-route="console-sonnet"]');
    const kept = fs.readdirSync(path.join(stack.catalog, 'history'));
    assert.equal(kept.length, 1);
    assert.equal(fs.readFileSync(path.join(stack.catalog, 'history', kept[0]), 'utf8'), original);
    await page.click('#editor-history button');
    await page.waitForSelector('#editor-diff .add');
    assert.match(await page.textContent('#editor-diff .add'), /console/);
    await shot('route-editor-saved');

    const followed = await stack.message(stack.memberKey, 'console-sonnet');
    assert.equal(followed.status, 200);
    await page.click('#tab-settings');
    await page.waitForSelector('#settings-loaded');
    assert.match(await page.textContent('#settings-loaded'), /by console/);
    assert.equal(await page.textContent('#settings-accepted'), '1');
    await shot('gateway-settings-after-reload');
    await until(async () => {
      const rows = await (await page.evaluate(async (id) => (await fetch('/admin/api/requests/' + id)).json(), followed.id));
      return rows.route_id === 'console-sonnet';
    }, 'the audit row of the request through the new route');
  });

  test('the Test button sends one prompt through exactly that deployment', async () => {
    await page.goto(`${stack.url}/admin/gateway`);
    await page.click('#tab-overview');
    await page.click('[data-probe="claude-sonnet-5-5 anthropic/api"]');
    const card = '[data-model="claude-sonnet-5-5"]';
    await page.waitForSelector(`${card} .probe-answer`, { timeout: 15000 });
    assert.match(await page.textContent(`${card} .probe-result`), /OK 200/);
    assert.match(await page.textContent(`${card} .probe-answer`), /mock provider/);
    await shot('gateway-test-button');
    await until(async () => {
      const probes = await page.evaluate(async () => (await fetch('/admin/api/requests?probes=1&model=claude-sonnet-5-5')).json());
      return probes.requests.some((r) => r.probe && r.served_endpoint === 'anthropic/api');
    }, 'the probe in the audit trail');
    const plain = await page.evaluate(async () => (await fetch('/admin/api/requests?model=claude-sonnet-5-5')).json());
    assert.ok(plain.requests.every((r) => !r.probe), 'probes are hidden by default');
  });

  test('analytics renders latency per model and SVG charts', async () => {
    await until(async () => {
      await page.goto(`${stack.url}/admin/analytics?since=1h&slo_ms=750`);
      await page.waitForSelector('#latency-table');
      return /claude-sonnet-5-5/.test(await page.textContent('#latency-table'));
    }, 'claude-sonnet-5-5 in the analytics');
    assert.equal((await page.$$('svg.chart')).length, 4);
    assert.ok((await page.$$('svg.chart rect')).length > 0);
    assert.match(await page.textContent('#main'), /SLO 750 ms/);
    const csv = await page.evaluate(async () => (await fetch('/admin/api/analytics.csv?by=model&since=1h')).text());
    assert.match(csv, /^model,requests,/);
    assert.match(csv, /claude-sonnet-5-5/);
    await shot('analytics');
    await page.setViewportSize({ width: 1024, height: 1400 });
    await page.waitForTimeout(300);  // let the relayout paint before the full-page capture
    await shot('analytics-laptop-width');
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  test('analytics shows the cache hit ratio and savings per route and per deployment', async () => {
    // 9,000 of 10,000 prompt tokens read from the cache at claude-sonnet-5-5's prices on anthropic/api:
    // 9,000 x ($2.00 - $0.20) per million = 16,200 microdollars saved.
    const script = JSON.stringify({ usage: { input_tokens: 1000, cache_read: 9000, output_tokens: 10 } });
    const sent = await stack.message(stack.memberKey, 'claude-sonnet-5-5', 'cached prompt', { 'x-mock-script': script });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.usage.cache_read_input_tokens, 9000);
    const row = await until(async () => {
      const data = await page.evaluate(async (id) => (await fetch(`/admin/api/requests/${id}`)).json(), sent.id);
      return data && data.id ? data : null;
    }, 'the cached request in the audit trail');
    assert.equal(row.cache_savings_microdollars, 16200);
    const { route, deployment } = await page.evaluate(async () => (await fetch('/admin/api/analytics?since=1h')).json()).then((d) => d.cost_by);
    const served = deployment.find((r) => r.key === 'anthropic/api');
    assert.ok(served, JSON.stringify(deployment));
    assert.ok(served.cache_read_tokens >= 9000 && served.cache_savings_microdollars >= 16200, JSON.stringify(served));
    assert.equal(served.cache_hit_ratio, served.cache_read_tokens / served.input_tokens);
    const byRoute = route.find((r) => r.key === row.route_id);
    assert.ok(byRoute && byRoute.cache_savings_microdollars >= 16200, JSON.stringify(route));

    await page.goto(`${stack.url}/admin/analytics?since=1h`);
    await page.waitForSelector('#cache-deployment [data-key="anthropic/api"]');
    const cells = await page.$$eval('#cache-deployment [data-key="anthropic/api"] td', (tds) => tds.map((td) => td.textContent));
    assert.match(cells[4], /^\d+\.\d %$/);  // hit ratio
    assert.equal(cells[5], S_usd(served.cache_savings_microdollars));
    assert.ok(await page.$(`#cache-route [data-key="${row.route_id}"]`), 'the route has a row');
    assert.match(await page.textContent('#cache-summary'), /Cache reads saved \$0\.0\d+/);
    const csv = await page.evaluate(async () => (await fetch('/admin/api/analytics.csv?by=deployment&since=1h')).text());
    assert.match(csv, /^deployment,requests,failed,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,reasoning_tokens,cost_usd,cache_hit_ratio,cache_savings_usd\n/);
    assert.match(csv, /\nanthropic\/api,\d+,\d+,\d+,\d+,\d+,\d+,\d+,[\d.]+,0\.\d{4},0\.0\d{5}\n/);
    await shot('analytics-cache');
  });

  test('analytics over a date range names the top spenders with real numbers', async () => {
    // Three days ago (UTC), three members' requests written straight into the trail with the daily
    // rollup filled from them the way migration 0002 does (the writer would have done both).
    const day = new Date(Date.now() - 3 * 86400e3).toISOString().slice(0, 10);
    const next = new Date(Date.parse(day) + 86400e3).toISOString().slice(0, 10);
    const rows = [['dana', 'apollo', 4000000], ['dana', 'apollo', 500000], ['eli', '@zephyr', 1250000], ['fay', 'apollo', 250000]]
      .map(([user, project, cost], i) => `('range-${i}', '${day}T${String(9 + i).padStart(2, '0')}:00:00Z', '${user}', '${project}', ` +
        `'claude-sonnet-5-5', 'anthropic', 200, 'ok', 100, 10, ${cost}, 800)`).join(', ');
    execFileSync('psql', [stack.dbUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-c',
      `SELECT sluice_ensure_ai_requests_partition('${day}'); ` +
      'INSERT INTO ai_requests (id, created_at, user_name, project, model, served_provider, status, outcome, ' +
      `input_tokens, output_tokens, cost_microdollars, latency_ms) VALUES ${rows}; ` +
      'INSERT INTO ai_usage_daily (day, user_name, project, model, provider, requests, failed, input_tokens, output_tokens, ' +
      'cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_microdollars, cache_savings_microdollars) ' +
      "SELECT (created_at AT TIME ZONE 'UTC')::date, user_name, project, model, served_provider, count(*), 0, sum(input_tokens), sum(output_tokens), " +
      "0, 0, 0, sum(cost_microdollars), 0 FROM ai_requests WHERE id LIKE 'range-%' GROUP BY 1, 2, 3, 4, 5"]);

    await page.goto(`${stack.url}/admin/analytics?from=${day}&until=${next}`);
    await page.waitForSelector('#top-member [data-key="dana"]');
    const shown = await page.textContent('#range-shown');
    assert.ok(shown.startsWith(`From ${day} 00:00 to ${next} 00:00 UTC.`), shown);
    const member = (key) => page.$$eval(`#top-member [data-key="${key}"] td`, (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(await member('dana'), ['1', 'dana', '2', S_usd(4500000), '75.0 %']);  // of $6.00 that day
    assert.deepEqual(await member('eli'), ['2', 'eli', '1', S_usd(1250000), '20.8 %']);
    assert.deepEqual(await member('fay'), ['3', 'fay', '1', S_usd(250000), '4.2 %']);
    const project = await page.$$eval('#top-project [data-key="apollo"] td', (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(project, ['1', 'apollo', '3', S_usd(4750000), '79.2 %']);
    assert.match(await page.textContent('#main'), /Top spenders \(\$6\.000 in all\)/);
    assert.match(await page.textContent('#latency-table'), /claude-sonnet-5-5\s*4/);
    assert.equal(await page.inputValue('#range-from'), day);
    assert.equal(await page.inputValue('select[name=since]'), '');  // no preset claims to be shown
    assert.deepEqual(await pageProblems(page), []);
    const csv = await page.evaluate(async (q) => (await fetch(`/admin/api/analytics.csv?by=member&${q}`)).text(), `from=${day}&until=${next}`);
    assert.match(csv, /\ndana,2,0,200,20,0,0,0,4\.500000,/);
    // A project named like a spreadsheet formula comes out as text (OWASP's leading apostrophe).
    const projects = await page.evaluate(async (q) => (await fetch(`/admin/api/analytics.csv?by=project&${q}`)).text(), `from=${day}&until=${next}`);
    assert.match(projects, /\n"'@zephyr",1,0,100,10,0,0,0,1\.250000,/);
    await shot('analytics-date-range');

    // Bad dates and ranges: a 400 with a clear message, shown under the form.
    const bad = await page.evaluate(async () => {
      const reply = await fetch('/admin/api/analytics?from=2026-13-01');
      return { status: reply.status, body: await reply.json() };
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.error.key, 'bad_range');
    assert.equal(bad.body.error.message, 'from 2026-13-01: month 13 does not exist');
    const long = await page.evaluate(async () => (await fetch('/admin/api/analytics?from=2020-01-01&until=2026-01-01')).json());
    assert.match(long.error.message, /longer than 400 days/);
    const backwards = await page.evaluate(async () => (await fetch('/admin/api/analytics?from=2026-12-03&until=2026-12-02')).json());
    assert.match(backwards.error.message, /^until 2026-12-02 00:00 is not after the start 2026-12-03 00:00 UTC$/);
    await page.goto(`${stack.url}/admin/analytics?from=2026-02-30`);
    await page.waitForSelector('#range-error');
    assert.equal(await page.textContent('#range-error'), 'from 2026-02-30: February 2026 has 28 days');
  });

  test('the gateway overview shows today\'s spend, top spenders and quota refusals apart from provider failures', async () => {
    const overview = await page.evaluate(async () => (await fetch('/admin/api/gateway/overview')).json());
    const today = overview.today;
    assert.ok(today.requests > 0 && today.spend_microdollars > 0, JSON.stringify(today));
    assert.ok(today.top_spenders.length > 0 && today.top_spenders.length <= 5, JSON.stringify(today));
    assert.equal(today.top_spenders.reduce((n, r) => n + r.cost_microdollars, 0) <= today.spend_microdollars, true);
    assert.ok(today.quota_refused + today.provider_failed <= today.failed, JSON.stringify(today));
    await page.goto(`${stack.url}/admin/gateway`);
    await page.waitForSelector('#today-top tbody tr');
    assert.equal(await page.textContent('#today-spend'), S_usd(today.spend_microdollars));
    const first = today.top_spenders[0];
    const cells = await page.$$eval(`#today-top [data-key="${first.member}"] td`, (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(cells, [first.member, String(first.requests), S_usd(first.cost_microdollars)]);
    assert.match(await page.textContent('#today-quota'), /^\d+\.\d % \(\d+\)$/);
    assert.match(await page.textContent('#today-provider'), /^\d+\.\d % \(\d+\)$/);
    assert.deepEqual(await pageProblems(page), []);
    await shot('gateway-today');
  });

  test('members, access control and connect pages render', async () => {
    await page.goto(`${stack.url}/admin/members`);
    await page.waitForSelector('#members-table [data-member="alice"]');
    const alice = await page.textContent('#members-table [data-member="alice"]');
    assert.match(alice, /sk-sluice-/);
    assert.match(alice, /opencode-go\s*set/);
    assert.doesNotMatch(alice, new RegExp(stack.memberKey));
    await shot('members');

    await page.goto(`${stack.url}/admin/access-control`);
    await page.selectOption('#check-user', 'alice');
    await page.click('#check-form button');
    await page.waitForSelector('#check-table');
    assert.match(await page.textContent('#check-table'), /allowed/);
    await shot('access-control');

    await page.goto(`${stack.url}/admin/mcp`);
    await page.waitForSelector('#mcp-servers');
    const servers = await page.textContent('#mcp-servers');
    assert.match(servers, /GitHub/);
    assert.match(servers, /\/mcp\/github/);
    assert.match(servers, /mcp_tool\/github\/delete_\*/);
    await page.selectOption('#mcp-user', 'alice');
    await page.click('#mcp-form button');
    await page.waitForSelector('#mcp-member #mcp-servers');
    assert.match(await page.textContent('#mcp-member #mcp-servers'), /allowed/);
    assert.deepEqual(await pageProblems(page), []);
    await shot('mcp');

    const member = await browser.newPage();
    await member.goto(`${stack.url}/admin/connect`);
    await member.fill('#connect-key', stack.memberKey);
    await member.click('form button');
    await member.waitForSelector('#connect-profile pre');
    const text = await member.textContent('#connect-profile');
    assert.match(text, /export ANTHROPIC_BASE_URL='http:\/\/127\.0\.0\.1/);
    assert.match(text, /export ANTHROPIC_MODEL='claude-sonnet-5-5\[1m\]'/, 'the default model, marked as a 1M-context model, quoted');
    assert.match(text, /export ANTHROPIC_DEFAULT_HAIKU_MODEL='claude-haiku-5-5\[1m\]'/);
    assert.match(text, /wire_api = "responses"/);
    assert.match(text, /@ai-sdk\/openai-compatible/);
    assert.match(text, new RegExp(`claude mcp add --transport http sluice http://127\\.0\\.0\\.1:\\d+/mcp --header "Authorization: Bearer ${stack.memberKey}"`));
    assert.match(text, /\[mcp_servers\.sluice\]/);
    assert.match(await member.textContent('#models-filter'), /clients:[\s\S]*every model unless the catalog narrows/);
    await member.screenshot({ path: path.join(shots, 'connect.png'), fullPage: true });
    await member.close();
  });

  test('the connect page gives Claude Code a settings.json env block and shell lines a shell reads back unchanged', async () => {
    const member = await browser.newPage();
    await member.goto(`${stack.url}/admin/connect`);
    await member.fill('#connect-key', stack.memberKey);
    await member.click('form button');
    const settings = JSON.parse(await member.textContent('pre[aria-label="Claude Code settings.json"]'));
    assert.deepEqual(Object.keys(settings), ['env']);
    assert.equal(settings.env.ANTHROPIC_BASE_URL, stack.url);
    assert.equal(settings.env.ANTHROPIC_AUTH_TOKEN, stack.memberKey);
    assert.equal(settings.env.ANTHROPIC_MODEL, 'claude-sonnet-5-5[1m]');
    const lines = await member.textContent('pre[aria-label="Claude Code environment"]');
    await member.close();
    // In a directory where the unquoted word would glob to a file name (claude-sonnet-5-5[1m]
    // matches claude-sonnet-5-51), a shell must still read back every value exactly.
    const dir = fs.mkdtempSync(path.join(stack.work, 'shell-'));
    fs.writeFileSync(path.join(dir, 'claude-sonnet-5-51'), '');
    const names = Object.keys(settings.env);
    const script = `${lines}\n${names.map((n) => `printf '%s\\n' "$${n}"`).join('\n')}\n`;
    const printed = execFileSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8' }).split('\n').slice(0, names.length);
    assert.deepEqual(printed, names.map((n) => settings.env[n]));
  });

  test('no page or detail view of the console shows [object, undefined, NaN or an empty field', async () => {
    // A refused request (no such model) has no route, deployment or match: its page shows "—".
    const refused = await stack.message(stack.memberKey, 'no-such-model');
    assert.equal(refused.status, 404, JSON.stringify(refused.body));
    await until(async () => (await page.evaluate(async (id) => (await fetch('/admin/api/requests/' + id)).status, refused.id)) === 200,
      'the refused request in the audit trail');
    await page.goto(`${stack.url}/admin/requests/${refused.id}`);
    await page.waitForSelector('#route-match');
    assert.equal(await page.textContent('#route-match'), '—');
    assert.deepEqual(await pageProblems(page), []);

    await page.goto(`${stack.url}/admin/gateway#providers`);
    await page.waitForSelector('[data-provider="anthropic"]');
    assert.match(await page.textContent('[data-provider="anthropic"]'), /Serves: claude-[\w.-]+ on anthropic\/api, claude-/);
    // The Bedrock provider's AWS keys: usable, and nothing of them shown.
    assert.equal(await page.textContent('[data-provider="bedrock"] [data-cloud-credential="bedrock"]'), 'usable: keys');

    const { stops, problems } = await walkConsole(page, stack.url);
    assert.deepEqual(problems, []);
    for (const must of ['/admin/gateway#providers', '/admin/gateway#routes', '/admin/gateway#settings', '/admin/requests',
      '/admin/analytics', '/admin/members', '/admin/access-control', '/admin/mcp', '/admin/connect',
      `/admin/requests/${refused.id}`]) {
      assert.ok(stops.includes(must), `the walk opened ${must}: ${stops.join(', ')}`);
    }
    assert.ok(stops.filter((s) => s.startsWith('/admin/requests/')).length >= 3, 'request pages of several outcomes');
  });

  test('with --insecure-no-auth the console is disabled with a page that says why', async () => {
    const insecure = await startInsecureGateway();
    try {
      const pageReply = await fetch(`${insecure.url}/admin/gateway`);
      assert.equal(pageReply.status, 503);
      assert.match(await pageReply.text(), /console is disabled[\s\S]*--insecure-no-auth/);
      const disabled = await browser.newPage();
      await disabled.goto(`${insecure.url}/admin/gateway`);
      assert.deepEqual(await pageProblems(disabled), []);
      await disabled.close();
      const apiReply = await fetch(`${insecure.url}/admin/api/members`);
      assert.equal((await apiReply.json()).error.key, 'console_disabled');
      assert.equal((await fetch(`${insecure.url}/admin/api/catalog/status`)).status, 401, 'no admin can sign in: only --ops-token opens it');
    } finally {
      await insecure.stop();
    }
  });

  test('signing out ends the session', async () => {
    await page.goto(`${stack.url}/admin/gateway`);
    await page.waitForSelector('#sign-out:not([hidden])');
    await page.click('#sign-out');
    await page.waitForURL((url) => url.pathname === '/admin/login');
    const status = await page.evaluate(async () => (await fetch('/admin/api/session')).status);
    assert.equal(status, 401);
  });
});
