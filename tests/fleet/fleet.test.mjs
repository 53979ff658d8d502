// The fleet as one gateway: three replicas on one PostgreSQL behind nginx (lib/fleet.mjs).
// - a rolling restart under steady load loses no request and no audit row;
// - a revoked key stops working on every replica within 5 s;
// - an enforced quota holds across replicas under a burst spread over all of them;
// - every replica reports the catalog version it serves, and a change reaches all of them.
// SLUICE_FLEET_LOAD_SECONDS lengthens the load phases (scripts/fleet.sh --soak).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { databaseUrl, newMember, revokeKey, sleep, sql, startFleet, steadyLoad } from './lib/fleet.mjs';

const skip = databaseUrl ? false : 'needs SLUICE_TEST_DATABASE_URL (a fleet shares one PostgreSQL)';
const MESSAGES = JSON.stringify({
  model: 'claude-haiku-5-5',
  max_tokens: 20,
  messages: [{ role: 'user', content: 'hello fleet' }],
});

function post(url, key, body = MESSAGES, extra = {}) {
  return fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...extra },
    body,
  });
}

// How many of `ids` have a row, polling until all do or `timeoutMs` passes.
async function rowsFor(ids, timeoutMs = 20000) {
  const file = path.join(fs.mkdtempSync('/tmp/sluice-fleet-ids-'), 'ids.sql');
  fs.writeFileSync(file, `select count(*) from ai_requests where id in (${ids.map((id) => `'${id}'`).join(',')});\n`);
  const deadline = Date.now() + timeoutMs;
  let found = 0;
  for (;;) {
    found = Number(await sql(`\\i ${file}`));
    if (found >= ids.length || Date.now() > deadline) break;
    await sleep(250);
  }
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return found;
}

describe('a fleet of three replicas behind nginx', { skip }, () => {
  let fleet;
  let member;
  before(async () => {
    fleet = await startFleet({ replicas: 3 });
    member = newMember('fleet');
  });
  after(async () => {
    await fleet?.stop();
  });

  test('a rolling restart under steady load loses no request and no audit row', async () => {
    const stream = JSON.stringify({ ...JSON.parse(MESSAGES), stream: true });
    const load = steadyLoad(6, () => post(fleet.url, member.key, Math.random() < 0.3 ? stream : MESSAGES));
    const loadSeconds = Number(process.env.SLUICE_FLEET_LOAD_SECONDS || 1);
    await sleep(loadSeconds * 1000);
    const exits = [];
    for (let i = 0; i < 3; ++i) {
      exits.push(await fleet.restart(i));
      await sleep(loadSeconds * 1000);
    }
    const counts = await load.stop();
    console.log(`rolling restart: ${counts.ok} answered, ${counts.failed} failed; exits ${JSON.stringify(exits)}`);
    assert.deepEqual(counts.errors, []);
    assert.equal(counts.failed, 0);
    assert.ok(counts.ok > 50, `steady load served (${counts.ok})`);
    for (const exit of exits) assert.equal(exit.code, 0, 'each replica drained and exited 0');
    const rows = await rowsFor(counts.ids);
    console.log(`rolling restart: ${rows} audit rows for ${counts.ids.length} answered requests`);
    assert.equal(rows, counts.ids.length);
  });

  test('a replica killed with SIGKILL under load loses only its in-flight requests, whose rows come from its journal', async () => {
    // Slow answers, so the killed replica has requests in flight.
    const slow = { 'x-mock-script': JSON.stringify({ delay_ms: 400 }) };
    const load = steadyLoad(6, () => post(fleet.url, member.key, MESSAGES, slow));
    await sleep(1500);
    const startedBefore = Number(await sql(
      `select count(*) from ai_requests where user_name = '${member.name}' and outcome = 'interrupted'`));
    // Three slow requests straight to the replica about to die: in flight when it is killed.
    const doomed = Array.from({ length: 3 }, () => post(fleet.replicaUrl(1), member.key, MESSAGES,
      { 'x-mock-script': JSON.stringify({ delay_ms: 5000 }) }).then((r) => r.status, () => 'broken'));
    await sleep(700);
    await fleet.kill(1, 'SIGKILL');
    const lost = await Promise.all(doomed);
    assert.deepEqual(lost, ['broken', 'broken', 'broken'], 'the killed replica\'s own in-flight requests are lost');
    await sleep(1500);
    const counts = await load.stop();
    await fleet.start(1);  // its journal is read back at start
    const rows = await rowsFor(counts.ids);
    // The restarted replica writes what its journal held within its writer's first batches.
    let interrupted = 0;
    for (const deadline = Date.now() + 15000; Date.now() < deadline; await sleep(250)) {
      interrupted = Number(await sql(
        `select count(*) from ai_requests where user_name = '${member.name}' and outcome = 'interrupted'`)) - startedBefore;
      if (interrupted >= 3) break;
    }
    console.log(`SIGKILL: ${counts.ok} answered (${rows} with rows), ${counts.failed} failed at the client, ` +
                `${interrupted} interrupted rows from the killed replica's journal`);
    // Every answered request has its row, the killed replica's included.
    assert.equal(rows, counts.ids.length);
    // nginx retries a request whose connection broke (non_idempotent), so the client sees none
    // fail; the killed replica's in-flight requests are recorded as interrupted.
    assert.equal(counts.failed, 0, counts.errors.join('\n'));
    assert.ok(interrupted >= 3, 'the killed replica\'s requests in flight are recorded as interrupted');
  });

  test('a revoked key stops working on every replica within 5 s', async () => {
    const doomed = newMember('fleet-revoked');
    for (let i = 0; i < 3; ++i) assert.equal((await post(fleet.replicaUrl(i), doomed.key)).status, 200);
    revokeKey(doomed.key);
    const revokedAt = Date.now();
    for (let i = 0; i < 3; ++i) {
      for (;;) {
        const status = (await post(fleet.replicaUrl(i), doomed.key)).status;
        if (status === 401) break;
        assert.ok(Date.now() - revokedAt < 5500, `replica ${i} still admits the revoked key`);
        await sleep(100);
      }
    }
    console.log(`revocation honoured by every replica within ${Date.now() - revokedAt} ms`);
  });

  test('a console session opened on one replica works on every replica, and ends everywhere', async () => {
    const admin = newMember('fleet-admin', 'admin');
    const signIn = async (i) => {
      const reply = await fetch(`${fleet.replicaUrl(i)}/admin/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: fleet.replicaUrl(i) },
        body: JSON.stringify({ key: admin.key }),
      });
      const text = await reply.text();
      assert.equal(reply.status, 200, text);
      const cookie = reply.headers.get('set-cookie').split(';')[0];
      return { cookie, csrf: JSON.parse(text).csrf };
    };
    const session = (i, cookie) => fetch(`${fleet.replicaUrl(i)}/admin/api/session`, { headers: { cookie } });
    const waitEnded = async (cookie, why) => {
      const since = Date.now();
      for (let i = 0; i < 3; ++i) {
        while ((await session(i, cookie)).status === 200) {
          assert.ok(Date.now() - since < 5500, `replica ${i} still honours the session after ${why}`);
          await sleep(100);
        }
      }
      return Date.now() - since;
    };

    // Signed in on replica 0: replicas 1 and 2 know the session, CSRF token included.
    const first = await signIn(0);
    for (let i = 0; i < 3; ++i) {
      const reply = await session(i, first.cookie);
      assert.equal(reply.status, 200, `replica ${i}`);
      assert.equal((await reply.json()).csrf, first.csrf);
    }
    // The fleet view: each replica's heartbeat with the catalog version it serves.
    const settings = await (await fetch(`${fleet.replicaUrl(1)}/admin/api/gateway/settings`, { headers: { cookie: first.cookie } })).json();
    const ours = settings.fleet.replicas.filter((r) => r.name.startsWith(`${fleet.name}-`));
    assert.deepEqual(ours.map((r) => r.name).sort(), [0, 1, 2].map((i) => fleet.replicaName(i)));
    assert.equal(new Set(ours.map((r) => r.catalog_version)).size, 1);
    assert.equal(settings.replica, fleet.replicaName(1));

    // Signed out on replica 2: gone on every replica.
    const out = await fetch(`${fleet.replicaUrl(2)}/admin/logout`, {
      method: 'POST',
      headers: { cookie: first.cookie, origin: fleet.replicaUrl(2), 'x-csrf-token': first.csrf },
    });
    assert.ok(out.status < 400, `sign-out answered ${out.status}`);
    const signedOut = await waitEnded(first.cookie, 'sign-out');

    // A revoked key ends its sessions on every replica.
    const second = await signIn(1);
    for (let i = 0; i < 3; ++i) assert.equal((await session(i, second.cookie)).status, 200);
    revokeKey(admin.key);
    const revoked = await waitEnded(second.cookie, 'the key was revoked');
    console.log(`console sessions: shared by 3 replicas; sign-out seen everywhere in ${signedOut} ms, revocation in ${revoked} ms`);
  });

  test('every replica reports the catalog version it serves, and a change reaches them all', async () => {
    const versions = async () => Promise.all([0, 1, 2].map(async (i) => (await (await fetch(`${fleet.replicaUrl(i)}/readyz`)).json()).catalog.version));
    const before = await versions();
    assert.equal(new Set(before).size, 1, `one version: ${before}`);
    const file = path.join(fleet.services, 'ai/models.yaml');
    fs.appendFileSync(file, '\n# touched by the fleet test\n');
    const deadline = Date.now() + 10000;
    let now;
    for (;;) {
      now = await versions();
      if (now.every((v) => v !== before[0]) || Date.now() > deadline) break;
      await sleep(200);
    }
    assert.equal(new Set(now).size, 1, `one version after the change: ${now}`);
    assert.notEqual(now[0], before[0]);
  });
});

describe('an enforced quota across replicas', { skip }, () => {
  let fleet;
  before(async () => {
    const services = fs.mkdtempSync('/tmp/sluice-fleet-quota-');
    fs.cpSync(new URL('../../services', import.meta.url).pathname, services, { recursive: true });
    fs.writeFileSync(path.join(services, 'ai/gateway.yaml'),
      'gateway:\n  default_model: claude-sonnet-5-5\n  quotas:\n    mode: enforce\n    windows:\n' +
      '      - { id: burst, per: project, seconds: 3600, max_requests: 30 }\n');
    fleet = await startFleet({ replicas: 3, services });
  });
  after(async () => {
    await fleet?.stop();
  });

  test('a burst spread over every replica is held to the window, overshooting by at most the requests in flight', async () => {
    const project = `burst${process.pid}${Date.now() % 100000}`;
    const member = newMember('fleet-burst', 'member', ['--project', project, '--primary-project', project]);
    const concurrency = 12;
    let accepted = 0;
    let refused = 0;
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < 120) {
        const i = next++;
        const status = (await post(fleet.replicaUrl(i % 3), member.key)).status;
        if (status === 200) accepted += 1;
        else if (status === 429) refused += 1;
        else assert.fail(`unexpected status ${status}`);
      }
    }));
    console.log(`quota burst: ${accepted} accepted, ${refused} refused (window 30, ${concurrency} in flight at most)`);
    assert.ok(accepted >= 30, 'the window was usable');
    assert.ok(accepted <= 30 + concurrency, `overshoot bounded by the requests in flight (${accepted})`);
  });
});
