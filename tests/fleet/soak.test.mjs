// The long mode (scripts/fleet.sh --soak 30m): steady load through nginx on three replicas for
// SLUICE_FLEET_SOAK_SECONDS, with a rolling restart every quarter of it; every 10 s the replicas'
// RSS and the window's latency percentiles are recorded to <SLUICE_FLEET_OUT>/soak.csv and drawn
// to soak.png (gnuplot, when installed). Skipped unless SLUICE_FLEET_SOAK_SECONDS is set.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { databaseUrl, newMember, sleep, startFleet } from './lib/fleet.mjs';

const seconds = Number(process.env.SLUICE_FLEET_SOAK_SECONDS || 0);
const skip = !seconds ? 'long mode only (scripts/fleet.sh --soak 30m)' : !databaseUrl ? 'needs a database' : false;

function rssMiB(pid) {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
    return Number(line.split(/\s+/)[1]) / 1024;
  } catch {
    return NaN;
  }
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN);

test('soak: steady load with rolling restarts, RSS and latency over time', { skip, timeout: (seconds + 120) * 1000 }, async () => {
  const out = process.env.SLUICE_FLEET_OUT || fs.mkdtempSync('/tmp/sluice-soak-');
  fs.mkdirSync(out, { recursive: true });
  const fleet = await startFleet({ replicas: 3 });
  const member = newMember('soak');
  const body = JSON.stringify({ model: 'claude-haiku-5-5', max_tokens: 20, messages: [{ role: 'user', content: 'soak' }] });
  let running = true;
  let window = [];
  let failed = 0;
  let answered = 0;
  const errors = [];
  const begin = Date.now();
  const loops = Array.from({ length: 8 }, async () => {
    while (running) {
      const started = performance.now();
      try {
        const reply = await fetch(`${fleet.url}/v1/messages`, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': member.key }, body,
        });
        const text = await reply.text();
        if (reply.ok) answered += 1;
        else {
          failed += 1;
          if (errors.length < 10) errors.push(`${Math.round((Date.now() - begin) / 1000)} s: ${reply.status} ${text.slice(0, 160)}`);
        }
      } catch (error) {
        failed += 1;
        if (errors.length < 10) errors.push(`${Math.round((Date.now() - begin) / 1000)} s: ${error.cause ?? error}`);
      }
      window.push(performance.now() - started);
    }
  });
  const rows = ['elapsed_s,rss_mib_0,rss_mib_1,rss_mib_2,requests,p50_ms,p99_ms'];
  let nextRestart = 1;
  while (Date.now() - begin < seconds * 1000) {
    await sleep(10000);
    const sorted = window.sort((a, b) => a - b);
    window = [];
    const elapsed = Math.round((Date.now() - begin) / 1000);
    rows.push([elapsed, ...[0, 1, 2].map((i) => rssMiB(fleet.replicas[i].pid).toFixed(1)), sorted.length,
      percentile(sorted, 0.5).toFixed(2), percentile(sorted, 0.99).toFixed(2)].join(','));
    if (elapsed >= (nextRestart * seconds) / 4 && nextRestart < 4) {
      for (let i = 0; i < 3; ++i) await fleet.restart(i);
      nextRestart += 1;
    }
  }
  running = false;
  await Promise.all(loops);
  await fleet.stop();
  fs.writeFileSync(path.join(out, 'soak.csv'), `${rows.join('\n')}\n`);
  try {
    execFileSync('gnuplot', ['-e', `set terminal png size 1000,600; set output '${out}/soak.png'; set datafile separator ',';
      set key noenhanced outside bottom center horizontal; set xlabel 'seconds'; set ylabel 'RSS (MiB)';
      set y2label 'latency (ms)'; set ytics nomirror; set y2tics; set yrange [0:*]; set y2range [0:*];
      plot '${out}/soak.csv' using 1:2 with lines title 'RSS replica 1', '' using 1:3 with lines title 'RSS replica 2',
           '' using 1:4 with lines title 'RSS replica 3', '' using 1:6 axes x1y2 with lines title 'p50 (ms)',
           '' using 1:7 axes x1y2 with lines title 'p99 (ms)'`]);
  } catch {
    // gnuplot missing: the CSV is the record
  }
  console.log(`soak: ${answered} answered, ${failed} failed over ${seconds} s; ${out}/soak.csv`);
  assert.equal(failed, 0, errors.join('\n'));
});
