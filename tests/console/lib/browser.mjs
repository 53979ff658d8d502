// What the console's browser suites share: waiting for a condition, signing in, and the walk over
// every page the console has with the check that no page shows a broken value.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

// Screenshots go to $SLUICE_CONSOLE_SCREENSHOTS (default: <tests/console>/screenshots).
export const shots = process.env.SLUICE_CONSOLE_SCREENSHOTS || path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'screenshots');

// Debian's chromium (SLUICE_CHROMIUM to use another), headless.
export async function launchBrowser() {
  fs.mkdirSync(shots, { recursive: true });
  return chromium.launch({ executablePath: process.env.SLUICE_CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
}

// Text a page must never show: a DOM node or object stringified, a value the server did not send,
// a sum over one. Matched case-sensitively on whole words, as a person reading the page would.
export const BROKEN_TEXT = /\[object|\bundefined\b|\bNaN\b/;

export async function until(check, what, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function signIn(page, url, key) {
  await page.goto(`${url}/admin/login`);
  await page.fill('#key', key);
  await page.click('button[type=submit]');
  await page.waitForURL((u) => u.pathname === '/admin/gateway');
}

// Polls `predicate(arg)` in the page until it is true. (page.waitForFunction's polling evaluates a
// string, which the console's Content-Security-Policy refuses, as it should.)
export async function pageUntil(page, predicate, arg, what) {
  return until(() => page.evaluate(predicate, arg), what);
}

// Waits until the page (or the open tab) has rendered: nothing says "Loading…" any more.
export async function settled(page) {
  await pageUntil(page, () => !/Loading…/.test((document.getElementById('app') || document.body).textContent), null,
    `${page.url()} to render`);
}

// Everything wrong with what the page shows now: broken text (in the rendered text, in SVG text
// and tooltips, in link targets), and detail-view fields left as empty boxes.
export async function pageProblems(page) {
  return page.evaluate((pattern) => {
    const broken = new RegExp(pattern);
    const problems = [];
    const look = (where, text) => {
      const match = broken.exec(text || '');
      if (match) problems.push(`${where}: …${text.slice(Math.max(0, match.index - 60), match.index + 40)}…`);
    };
    look('text', document.body.innerText);
    for (const node of document.querySelectorAll('svg text, svg title')) look('svg', node.textContent);
    for (const node of document.querySelectorAll('a[href]')) look('link', node.getAttribute('href'));
    for (const node of document.querySelectorAll('[title], [aria-label]')) {
      look('label', `${node.getAttribute('title') || ''} ${node.getAttribute('aria-label') || ''}`);
    }
    for (const dd of document.querySelectorAll('dl.kv dd')) {
      if (!dd.textContent.trim()) problems.push(`empty field: ${dd.previousElementSibling?.textContent || '?'}`);
    }
    return problems;
  }, BROKEN_TEXT.source);
}

// Opens every page of the console's navigation (found in the page header, so a new page is walked
// without a change here), every tab of a page, and the detail views reached from them: request
// pages (the newest of each outcome and a few more), the access check of every member, a kept
// route version's diff. `visit(where)` runs at each stop (after it rendered); returns the stops and
// the problems found at each.
export async function walkConsole(page, url, visit = async () => {}) {
  const stops = [];
  const problems = [];
  const stop = async (where) => {
    await settled(page);
    stops.push(where);
    for (const problem of await pageProblems(page)) problems.push(`${where}: ${problem}`);
    await visit(where);
  };
  await page.goto(`${url}/admin/login`);
  await stop('/admin/login');
  await page.goto(`${url}/admin/gateway`);
  const nav = await page.$$eval('header nav a[href]', (links) => links.map((a) => a.getAttribute('href')));
  for (const href of nav) {
    await page.goto(`${url}${href}`);
    await stop(href);
    const tabs = await page.$$eval('[role=tab]', (buttons) => buttons.map((b) => b.id));
    for (const tab of tabs) {
      await page.click(`#${tab}`);
      await page.waitForSelector(`#${tab}[aria-selected=true]`);
      await stop(`${href}#${tab.replace(/^tab-/, '')}`);
      const history = await page.$('#editor-history button');
      if (history) {
        await history.click();
        await page.waitForSelector('#editor-diff .diff');
        await stop(`${href}#${tab.replace(/^tab-/, '')} history diff`);
      }
    }
    if (await page.$('#check-form')) {
      const members = await page.$$eval('#check-user option', (options) => options.map((o) => o.value));
      for (const member of members) {
        await page.selectOption('#check-user', member);
        await page.click('#check-form button');
        await pageUntil(page, (name) => document.querySelector('#access-result')?.textContent.includes(name), member,
          `the access check of ${member}`);
        await stop(`${href} check ${member}`);
      }
    }
    if (await page.$('#mcp-form')) {
      await page.selectOption('#mcp-user', { index: 0 });
      await page.click('#mcp-form button');
      await page.waitForSelector('#mcp-member #mcp-servers');
      await stop(`${href} check`);
    }
    if (await page.$('#requests-table')) {
      const rows = await page.$$eval('#requests-table tbody tr', (trs) => trs.map((tr) => ({
        href: tr.querySelector('a')?.getAttribute('href'), outcome: tr.children[7]?.textContent,
      })).filter((r) => r.href));
      const picked = new Map();
      for (const row of rows) if (!picked.has(row.outcome)) picked.set(row.outcome, row.href);
      const details = [...new Set([...picked.values(), ...rows.slice(0, 3).map((r) => r.href)])];
      for (const detail of details) {
        await page.goto(`${url}${detail}`);
        await stop(detail);
      }
    }
  }
  return { stops, problems };
}
