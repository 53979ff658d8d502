// Budget alerts from a fleet: three replicas of the real `sluice` on one PostgreSQL, a quota
// window with `alerts: [{ at: 80%, ... }]`, requests spread over every replica, and a small HTTP
// receiver in this test standing for finance's webhook.
// - the 80 % alert reaches the webhook exactly once, whichever replicas notice it;
// - its JSON body is signed: the HMAC-SHA256 is recomputed here with the secret;
// - a webhook that answers 500 and then 200 gets the same alert twice (same id) and it ends
//   delivered, each attempt recorded in budget_alert_attempts.

import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { databaseUrl, newMember, sleep, sql, startFleet } from './lib/fleet.mjs';

const skip = databaseUrl ? false : 'needs SLUICE_TEST_DATABASE_URL (a fleet shares one PostgreSQL)';
const SECRET = `whsec-fleet-${process.pid}`;
const MESSAGES = JSON.stringify({ model: 'claude-haiku-5-5', max_tokens: 20, messages: [{ role: 'user', content: 'budget' }] });

// A webhook receiver on 127.0.0.1:0: records every POST (path, headers, raw body); a path listed
// in `failFirst` answers 500 to its first POST.
async function startReceiver(failFirst = []) {
  const received = [];
  const failed = new Set();
  const server = http.createServer((request, response) => {
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size <= 65536) chunks.push(chunk);
    });
    request.on('end', () => {
      const path = request.url.split('?')[0];
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks) });
      const fail = failFirst.includes(path) && !failed.has(path);
      if (fail) failed.add(path);
      response.writeHead(fail ? 500 : 200, { 'content-type': 'text/plain' });
      response.end(fail ? 'try again' : 'ok');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, received, close: () => server.close() };
}

function verified(headers, body) {
  const timestamp = headers['x-sluice-timestamp'];
  const mac = crypto.createHmac('sha256', SECRET).update(`${timestamp}.`).update(body).digest('hex');
  const given = Buffer.from(String(headers['x-sluice-signature']));
  const expected = Buffer.from(`sha256=${mac}`);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected) &&
    Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
}

async function waitFor(predicate, timeoutMs = 15000) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) {
    if (predicate()) return true;
  }
  return predicate();
}

describe('budget alerts from a fleet of three replicas', { skip }, () => {
  let fleet;
  let receiver;
  before(async () => {
    receiver = await startReceiver(['/flaky']);
    process.env.FLEET_WEBHOOK_SECRET = SECRET;
    const services = fs.mkdtempSync('/tmp/sluice-fleet-alerts-');
    fs.cpSync(new URL('../../services', import.meta.url).pathname, services, { recursive: true });
    fs.writeFileSync(path.join(services, 'ai/gateway.yaml'), `gateway:
  default_model: claude-sonnet-5-5
  webhooks:
    finance: { url: "${receiver.url}/finance?token=kept-out-of-logs", format: json, secret: env:FLEET_WEBHOOK_SECRET }
    flaky: { url: "${receiver.url}/flaky", format: json, secret: env:FLEET_WEBHOOK_SECRET }
  quotas:
    mode: enforce
    windows:
      - id: fleet-budget
        per: project
        period: day
        max_requests: 10
        alerts: [{ at: 80%, notify: webhook/finance }]
      - id: fleet-flaky
        per: project
        period: day
        mode: warn
        max_requests: 10
        alerts: [{ at: 80%, notify: webhook/flaky }]
`);
    fleet = await startFleet({ replicas: 3, services });
  });
  after(async () => {
    await fleet?.stop();
    receiver?.close();
  });

  test('an 80 % alert reaches the webhook exactly once, signed, and a 500 is retried', async () => {
    const project = `alerts${process.pid}${Date.now() % 100000}`;
    const member = newMember('fleet-alerts', 'member', ['--project', project, '--primary-project', project]);
    // 8 requests reach 80 % of 10; the 9th to 12th (spread over every replica) see it, and the
    // enforce window refuses the 11th and 12th.
    const statuses = [];
    for (let i = 0; i < 12; ++i) {
      const reply = await fetch(`${fleet.replicaUrl(i % 3)}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': member.key },
        body: MESSAGES,
      });
      statuses.push(reply.status);
      await reply.arrayBuffer();
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
    assert.ok(await waitFor(() => receiver.received.filter((r) => r.path === '/finance').length >= 1), 'the alert arrived');
    assert.ok(await waitFor(() => receiver.received.filter((r) => r.path === '/flaky').length >= 2), 'the 500 was retried');
    await sleep(3000);  // any duplicate from another replica would have arrived by now

    const finance = receiver.received.filter((r) => r.path === '/finance');
    assert.equal(finance.length, 1, 'exactly once across three replicas');
    assert.ok(verified(finance[0].headers, finance[0].body), 'the HMAC-SHA256 signature verifies with the secret');
    const alert = JSON.parse(finance[0].body.toString('utf8'));
    assert.equal(alert.type, 'budget_alert');
    assert.equal(alert.window, 'fleet-budget');
    assert.equal(alert.scope_kind, 'project');
    assert.equal(alert.scope_value, project);
    assert.equal(alert.threshold_percent, 80);
    assert.equal(alert.measure, 'requests');
    assert.equal(alert.limit, 10);
    assert.ok(alert.used >= 8 && alert.used < 10, `used ${alert.used}`);
    assert.equal(finance[0].headers['x-sluice-alert-id'], alert.id);

    const flaky = receiver.received.filter((r) => r.path === '/flaky');
    assert.equal(flaky.length, 2, 'one failed attempt, one delivered: never sent again');
    assert.equal(flaky[0].headers['x-sluice-alert-id'], flaky[1].headers['x-sluice-alert-id']);
    assert.ok(verified(flaky[1].headers, flaky[1].body));

    const claims = await sql(`select window_id || ':' || outcome from budget_alerts where scope_value = '${project}' order by window_id`);
    assert.equal(claims, 'fleet-budget:delivered\nfleet-flaky:delivered');
    const attempts = await sql(`select status || ':' || reason from budget_alert_attempts where scope_value = '${project}' and window_id = 'fleet-flaky' order by attempt`);
    assert.equal(attempts, '500:status_500\n200:delivered');
    console.log(`budget alerts: 1 of 3 replicas sent the 80 % alert; the flaky webhook got it on attempt 2`);
  });
});
