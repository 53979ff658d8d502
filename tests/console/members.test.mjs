// The Members page's changes in headless Chromium, on a stack of its own (lib/stack.mjs: root the
// only admin, alice a member in group engineering, project research): add, change, disable and
// enable a member, create a key (shown once) and revoke it, the record of who did each, and the
// refusals hostile input gets. Every step checks the page shows no broken text.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { launchBrowser, pageProblems, shots, signIn, until } from './lib/browser.mjs';
import { startStack } from './lib/stack.mjs';

let stack;
let browser;
let page;

const row = (name) => `#members-table tr[data-member="${name}"]`;
const rowText = (name) => page.textContent(row(name));

// The status line once it says something other than "Saving…".
async function statusAfter(action) {
  await action();
  return until(async () => {
    const text = await page.textContent('#members-status');
    return text && text !== 'Saving…' ? text : null;
  }, 'the change to be answered');
}

async function clean(where) {
  assert.deepEqual(await pageProblems(page), [], where);
}

// A POST from the signed-in page, with the session's CSRF token unless `csrf` is false.
function post(apiPath, body, csrf = true) {
  return page.evaluate(async ([p, b, withToken]) => {
    const headers = { 'Content-Type': 'application/json' };
    if (withToken) headers['X-CSRF-Token'] = window.Sluice.session.csrf;
    const reply = await fetch(p, { method: 'POST', headers, body: JSON.stringify(b) });
    return { status: reply.status, body: await reply.json() };
  }, [apiPath, body, csrf]);
}

describe('console members page changes', () => {
  before(async () => {
    stack = await startStack();
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1500, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(10000);
    await signIn(page, stack.url, stack.adminKey);
    await page.goto(`${stack.url}/admin/members`);
    await page.waitForSelector(row('alice'));
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  test('an admin adds a member, a typo in a group is refused until it is meant', async () => {
    await page.fill('#add-name', 'zoe');
    await page.fill('#add-groups', 'enginering');
    await page.fill('#add-projects', 'research');
    const refused = await statusAfter(() => page.click('#add-submit'));
    assert.match(refused, /^Refused: group 'enginering' is held by no member/);
    assert.equal(await page.$(row('zoe')), null);
    await page.fill('#add-groups', 'engineering');
    const added = await statusAfter(() => page.click('#add-submit'));
    assert.equal(added, 'Added zoe (member). Make them a key with “New key”.');
    assert.match(await rowText('zoe'), /zoe.*member.*engineering.*research \(primary\)/s);
    await clean('after add');
  });

  test('an admin moves a member to another group and project', async () => {
    await page.click(`${row('zoe')} .member-edit`);
    await page.fill('#edit-groups', 'engineering, ops');
    await page.fill('#edit-projects', 'odoo, research');
    await page.fill('#edit-primary', 'odoo');
    const unknown = await statusAfter(() => page.click('#edit-submit'));
    assert.match(unknown, /^Refused: group 'ops' is held by no member/);
    await page.check('#edit-allow-new');
    const saved = await statusAfter(() => page.click('#edit-submit'));
    assert.equal(saved, 'Saved zoe: member; groups engineering, ops; projects odoo, research.');
    assert.match(await rowText('zoe'), /engineering, ops.*odoo \(primary\), research/s);
    assert.equal(await page.$('#member-edit'), null, 'the form closes once saved');
    await clean('after update');
  });

  test('an admin disables and re-enables a member, but never themself', async () => {
    await statusAfter(() => page.click(`${row('zoe')} .member-disable`));
    await until(async () => / disabled/.test(await rowText('zoe')), 'zoe to show disabled');
    const enabled = await statusAfter(() => page.click(`${row('zoe')} .member-enable`));
    assert.match(enabled, /^Enabled zoe/);
    assert.doesNotMatch(await rowText('zoe'), / disabled/);
    assert.equal(await page.$eval(`${row('root')} .member-disable`, (b) => b.disabled), true);
    const self = await post('/admin/api/members/disable', { name: 'root' });
    assert.equal(self.status, 409);
    assert.equal(self.body.error.key, 'self_change');
    const demote = await post('/admin/api/members/update', { name: 'root', role: 'member' });
    assert.equal(demote.status, 409);
    await clean('after disable and enable');
  });

  test('a key made in the console is shown once, works, and is revoked with two clicks', async () => {
    await page.click(`${row('zoe')} .key-new`);
    await page.fill('#key-name', 'ci');
    await page.selectOption('#key-project', 'research');
    const created = await statusAfter(() => page.click('#key-submit'));
    assert.match(created, /^Created sk-sluice-[A-Za-z0-9]{8} for zoe\.$/);
    const key = (await page.textContent('#new-key')).trim();
    assert.match(key, /^sk-sluice-/);
    const models = await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(models.status, 200);
    await clean('with the new key shown');
    await page.screenshot({ path: path.join(shots, 'members-new-key.png'), fullPage: true });
    await page.reload();
    await page.waitForSelector(row('zoe'));
    assert.equal(await page.$('#new-key'), null);
    assert.ok(!(await page.textContent('body')).includes(key), 'the key is never shown again');

    const revoke = `${row('zoe')} .key-revoke`;
    await page.click(revoke);
    assert.equal(await page.textContent(revoke), 'Revoke for good?');
    const revoked = await statusAfter(() => page.click(revoke));
    assert.match(revoked, /^Revoked sk-sluice-\w{8} of zoe/);
    assert.match(await rowText('zoe'), /revoked · ci · research/);
    await until(async () => (await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status === 401,
      'the revoked key to be refused', 15000);
    await clean('after revoke');
  });

  test('every change is recorded under the admin who made it', async () => {
    const history = await page.textContent('#member-history');
    for (const action of ['member.add', 'member.update', 'member.disable', 'member.enable', 'key.create', 'key.revoke']) {
      assert.match(history, new RegExp(`console:root${action.replace('.', '\\.')}zoe`), action);
    }
    assert.match(history, /groups engineering -> engineering,ops; projects research -> odoo,research; primary research -> odoo/);
    const cli = stack.sluicectl(['users', 'history', 'zoe', '--json']);
    assert.equal(JSON.parse(cli).length, 6);
    await page.screenshot({ path: path.join(shots, 'members-changes.png'), fullPage: true });
    await clean('the history');
  });

  test('hostile requests get a clear refusal and change nothing', async () => {
    const before = JSON.parse(stack.sluicectl(['users', 'history', '--json'])).length;
    const noToken = await post('/admin/api/members/add', { name: 'mallory' }, false);
    assert.equal(noToken.status, 403);
    assert.equal(noToken.body.error.key, 'csrf_token_invalid');
    const long = await post('/admin/api/members/add', { name: 'x'.repeat(5000) });
    assert.equal(long.status, 400);
    assert.match(long.body.error.message, /invalid member name/);
    assert.ok(!long.body.error.message.includes('xxxxxxxx'), 'the overlong name is not echoed');
    const ghost = await post('/admin/api/members/update', { name: 'ghost', groups: ['engineering'] });
    assert.equal(ghost.status, 404);
    assert.equal(ghost.body.error.message, "no member named 'ghost'");
    const typed = await post('/admin/api/members/update', { name: 'zoe', groups: 'ops' });
    assert.equal(typed.status, 400);
    assert.match(typed.body.error.message, /"groups" must be an array of names/);
    const many = await post('/admin/api/members/update', { name: 'zoe', groups: Array(65).fill('engineering') });
    assert.equal(many.status, 400);
    const noKey = await post('/admin/api/keys/revoke', { id: 'sk-sluice-NOTAKEY1' });
    assert.equal(noKey.status, 404);
    const secret = await post('/admin/api/keys/revoke', { id: 'sk-proj-THIS-IS-A-SECRET-PASTED' });
    assert.equal(secret.status, 400);
    assert.ok(!JSON.stringify(secret.body).includes('SECRET'), 'a pasted secret is not echoed');
    const badDays = await post('/admin/api/keys/create', { user: 'zoe', expires_days: 'soon' });
    assert.equal(badDays.status, 400);
    const badProject = await post('/admin/api/keys/create', { user: 'zoe', project: 'p'.repeat(5000) });
    assert.equal(badProject.status, 400);
    assert.ok(!badProject.body.error.message.includes('pppppppp'), 'the overlong project is not echoed');
    const notTheirs = await post('/admin/api/keys/create', { user: 'zoe', project: 'elsewhere' });
    assert.equal(notTheirs.status, 409);
    assert.match(notTheirs.body.error.message, /not a member of project 'elsewhere'/);
    assert.equal(JSON.parse(stack.sluicectl(['users', 'history', '--json'])).length, before);
  });
});
