// The console's catalog tools in headless Chromium, on a stack of their own (lib/stack.mjs): the
// banner every page shows while a catalog reload is refused, the route editor's Download and Copy
// as diff for a change through git, and a replica whose catalog is mounted read-only (Save hidden,
// the server saying why).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { launchBrowser, pageUntil, shots, signIn, until, walkConsole } from './lib/browser.mjs';
import { startStack } from './lib/stack.mjs';

let stack;
let browser;
let context;
let page;

const status = () => page.evaluate(async () => (await fetch('/admin/api/catalog/status')).json());

describe('console catalog tools', () => {
  before(async () => {
    stack = await startStack();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    page.setDefaultTimeout(10000);
    await signIn(page, stack.url, stack.adminKey);
  });

  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  test('while a catalog reload is refused every page shows a banner with the whole diagnostics, gone once the files compile', async () => {
    const file = path.join(stack.catalog, 'ai/models.yaml');
    const original = fs.readFileSync(file, 'utf8');
    assert.equal((await status()).reload_refused_now, false);
    // A model whose provider does not exist: a diagnostic long enough to need wrapping.
    const broken = `${original.trimEnd()}\n  console-banner-test-model-with-a-long-name-so-the-diagnostic-line-runs-wide:\n    display_name: Banner test\n    provider_model_of_nothing: [no-such-provider-whatsoever/api]\n`;
    fs.writeFileSync(file, broken);
    try {
      const refused = await until(async () => ((await status()).reload_refused_now ? status() : null), 'the refused reload', 15000);
      assert.ok(refused.last_refused.diagnostics.length > 0);
      const expected = refused.last_refused.diagnostics.join('\n');
      await page.setViewportSize({ width: 760, height: 900 });
      const { stops, problems } = await walkConsole(page, stack.url, async (where) => {
        if (where === '/admin/login') return;
        const banner = await page.waitForSelector('#reload-banner');
        assert.match(await banner.textContent(), /Catalog reload refused/, where);
        assert.equal(await page.textContent('#reload-diagnostics'), expected, `${where}: the whole diagnostics`);
        const fits = await page.$eval('#reload-diagnostics', (pre) => pre.scrollWidth <= pre.clientWidth + 1);
        assert.ok(fits, `${where}: the diagnostics wrap instead of running out of the box`);
      });
      assert.deepEqual(problems, []);
      assert.ok(stops.includes('/admin/members') && stops.includes('/admin/gateway#settings'), stops.join(', '));
      await page.goto(`${stack.url}/admin/gateway#settings`);
      await page.waitForSelector('#settings-refused');
      assert.ok(await page.$eval('#settings-refused', (pre) => pre.scrollWidth <= pre.clientWidth + 1), 'Settings wraps them too');
      assert.match(await page.textContent('#panel'), /standing/);
      await page.screenshot({ path: path.join(shots, 'reload-refused-banner.png'), fullPage: true });
    } finally {
      fs.writeFileSync(file, original);
      await page.setViewportSize({ width: 1400, height: 900 });
    }
    // Put back as it was: the reload compiles to the catalog already serving, and the refusal is over.
    await until(async () => (await status()).reload_refused_now === false, 'the refusal to end', 15000);
    await page.goto(`${stack.url}/admin/members`);
    await page.waitForSelector('#members-table');
    assert.equal(await page.$('#reload-banner'), null);
  });

  test('the route editor downloads the edited file and copies a unified diff that git applies to the file as loaded', async () => {
    const file = path.join(stack.catalog, 'ai/gateway.yaml');
    const original = fs.readFileSync(file, 'utf8');
    const source = await page.evaluate(async () => (await fetch('/admin/api/routes/source')).json());
    assert.equal(source.writable, true);
    assert.equal(source.read_only_reason, null);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
    await page.goto(`${stack.url}/admin/gateway#routes`);
    await page.waitForSelector('#route-editor');
    assert.ok(await page.$('#editor-save'), 'Save is offered where the directory is writable');
    assert.match(await page.textContent('#editor-where'), /differs from git/);
    const edited = original.replace('  routes:\n', '  routes:\n    # proposed in the console\n    - id: console-diff\n      alias: claude-sonnet-5-5\n');
    assert.notEqual(edited, original);
    await page.fill('#route-editor', edited);

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#editor-download')]);
    assert.equal(download.suggestedFilename(), 'gateway.yaml');
    assert.equal(fs.readFileSync(await download.path(), 'utf8'), edited);

    await page.click('#editor-copy-diff');
    await page.waitForSelector('#editor-patch');
    const diff = await page.textContent('#editor-patch');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), diff);
    assert.match(diff, /^--- a\/services\/ai\/gateway\.yaml\n\+\+\+ b\/services\/ai\/gateway\.yaml\n@@ -\d+,\d+ \+\d+,\d+ @@/);
    assert.equal(fs.readFileSync(file, 'utf8'), original, 'nothing was written');
    // The diff is a change for a pull request: git applies it to the file as loaded and gets the edit.
    const clone = fs.mkdtempSync(path.join(stack.work, 'clone-'));
    fs.mkdirSync(path.join(clone, 'services/ai'), { recursive: true });
    fs.writeFileSync(path.join(clone, 'services/ai/gateway.yaml'), original);
    fs.writeFileSync(path.join(clone, 'change.diff'), diff);
    execFileSync('git', ['apply', 'change.diff'], { cwd: clone, stdio: ['ignore', 'pipe', 'pipe'] });
    assert.equal(fs.readFileSync(path.join(clone, 'services/ai/gateway.yaml'), 'utf8'), edited);
    await page.screenshot({ path: path.join(shots, 'route-editor-diff.png'), fullPage: true });

    await page.fill('#route-editor', original);
    await page.click('#editor-copy-diff');
    await pageUntil(page, () => /No difference/.test(document.getElementById('editor-status').textContent), null, 'No difference');
    assert.equal(await page.$('#editor-patch'), null);
  });

  test('a replica whose catalog is mounted read-only hides Save, says why, and still offers Download and Copy as diff', async () => {
    const replica = await stack.startGateway({ readOnlyCatalog: true });
    const ro = await context.newPage();
    try {
      // The console session lives in PostgreSQL: the browser is signed in on this replica too.
      await ro.goto(`${replica.url}/admin/gateway#routes`);
      await ro.waitForSelector('#route-editor').catch(async (error) => {
        await ro.screenshot({ path: path.join(shots, 'route-editor-read-only-failed.png'), fullPage: true });
        throw new Error(`${error.message}\npage: ${ro.url()}\n${await ro.textContent('body')}\n--- replica stderr ---\n${replica.stderr().slice(-3000)}`);
      });
      const source = await ro.evaluate(async () => (await fetch('/admin/api/routes/source')).json());
      assert.equal(source.writable, false);
      assert.match(source.read_only_reason, /ai cannot be written \(Read-only file system\)/);
      assert.equal(await ro.$('#editor-save'), null, 'no Save button');
      assert.match(await ro.textContent('#editor-read-only'), /Saving is off here: .*Read-only file system.*change gateway\.yaml in git/i);
      assert.ok(await ro.$('#editor-download') && await ro.$('#editor-copy-diff'));
      const save = await ro.evaluate(async (text) => {
        const session = await (await fetch('/admin/api/session')).json();
        const r = await fetch('/admin/api/routes/save', {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf }, body: JSON.stringify({ text }),
        });
        return { status: r.status, body: await r.json() };
      }, source.text + '\n');
      assert.equal(save.status, 409);
      assert.equal(save.body.error.key, 'catalog_read_only');
      await ro.screenshot({ path: path.join(shots, 'route-editor-read-only.png'), fullPage: true });
    } finally {
      await ro.close();
    }
    // The first gateway, outside that mount namespace, still writes the same directory.
    const writable = await page.evaluate(async () => (await fetch('/admin/api/routes/source')).json());
    assert.equal(writable.writable, true);
  });
});
