// A fleet on loopback: the mock provider, N `sluice` replicas on one PostgreSQL (each with its own
// spool), and nginx in front of them as a platform team would put it (an upstream pool with
// keep-alive, passive health checks, a retry on the next replica when one refuses connections).
// Replicas keep their ports across restarts, so nginx's pool stays as written.
//
//   const fleet = await startFleet({ replicas: 3 });
//   await fleet.restart(1);                      // SIGTERM, wait for the exit, start again
//   fleet.kill(2, 'SIGKILL');  await fleet.start(2);
//   await fleet.stop();
//
// Needs SLUICE_TEST_DATABASE_URL (scripts/test.sh and scripts/fleet.sh set it), nginx, and the
// binaries in SLUICE_BIN_DIR (default <repo>/build/bin).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const sourceDir = process.env.SLUICE_SOURCE_DIR || path.resolve(here, '../../..');
export const binDir = process.env.SLUICE_BIN_DIR || path.join(sourceDir, 'build/bin');
export const databaseUrl = process.env.SLUICE_TEST_DATABASE_URL;

const children = new Set();
process.on('exit', () => {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone
    }
  }
});

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Spawns `binary args`; resolves once stdout printed a line starting with `ready` (a string).
function spawnChild(binary, args, env, ready, timeoutMs = 20000) {
  const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (piece) => {
    stderr = (stderr + piece).slice(-(1 << 18));
  });
  child.exited = new Promise((resolve) => child.on('exit', (code, signal) => {
    children.delete(child);
    resolve({ code, signal });
  }));
  child.stderrText = () => stderr;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${binary} did not become ready within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.stdout.on('data', (piece) => {
      stdout += piece;
      const line = stdout.split('\n').find((l) => l.startsWith(ready));
      if (line) {
        clearTimeout(timer);
        child.readyLine = line;
        resolve(child);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${binary} exited (${code}) before it was ready\n${stderr}`));
    });
  });
}

function sluicectl(...args) {
  return execFileSync(path.join(binDir, 'sluicectl'),
    ['--database-url', databaseUrl, '--services', path.join(sourceDir, 'services'), ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

// A new member with one key; returns { name, key }.
export function newMember(base, role = 'member', extra = []) {
  const name = `${base}-${process.pid}-${Date.now() % 1000000}-${Math.floor(Math.random() * 1000)}`;
  sluicectl('users', 'add', name, '--role', role, ...extra);
  const key = sluicectl('keys', 'create', name, '--name', 'fleet').trim().split('\n').pop();
  if (!key.startsWith('sk-sluice-')) throw new Error(`no key printed for ${name}`);
  return { name, key };
}

export function revokeKey(key) {
  return sluicectl('keys', 'revoke', key);
}

export async function sql(query) {
  return execFileSync('psql', [databaseUrl, '-At', '-c', query], { encoding: 'utf8' }).trim();
}

function nginxConf(prefix, port, replicaPorts) {
  fs.mkdirSync(path.join(prefix, 'logs'), { recursive: true });
  const servers = replicaPorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n');
  return `
worker_processes 1;
error_log ${prefix}/logs/error.log warn;
pid ${prefix}/nginx.pid;
daemon off;
events { worker_connections 4096; }
http {
  access_log ${prefix}/logs/access.log;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  upstream sluice {
${servers}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://sluice;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 120s;
      # A replica that refuses the connection (stopped accepting), resets it, or answers 503
      # hands the request to the next one. non_idempotent: a POST whose connection broke before
      # any byte of the answer is retried too. A stopping replica never resets a request it read
      # (it serves what arrived before it closes), so what breaks there is an idle keep-alive
      # connection it closed just as nginx reused it: the request never reached the gateway. The
      # price: a replica that crashes mid-request (SIGKILL) may have called the provider already,
      # and the retry calls it again; the client still gets one answer.
      proxy_next_upstream error non_idempotent;
      proxy_next_upstream_tries 3;
    }
  }
}
`;
}

export class Fleet {
  constructor(options) {
    this.options = options;
    this.replicas = [];
    // Replica names unique to this fleet: they key the shared fleet_replicas table.
    this.name = `fleet${process.pid}x${Date.now() % 100000}`;
  }

  replicaName(i) {
    return `${this.name}-${i}`;
  }

  async boot() {
    const { replicas = 3, extraArgs = [], services } = this.options;
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-fleet-'));
    this.services = services ?? path.join(this.dir, 'services');
    if (!services) {
      fs.cpSync(path.join(sourceDir, 'services'), this.services, { recursive: true, dereference: true });
      const file = path.join(this.services, 'ai/providers.yaml');
      const anchor = '    user_agent: sluice/1\n';
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split(anchor).join(`${anchor}    forward_headers: [x-mock-script]\n`));
    }
    this.mock = await spawnChild(path.join(binDir, 'sluice-mock-provider'), ['--listen', '127.0.0.1:0', '--quiet'],
      { ...process.env }, 'listening on ');
    this.mockUrl = `http://${this.mock.readyLine.slice('listening on '.length).trim()}`;
    this.ports = [];
    for (let i = 0; i < replicas; ++i) this.ports.push(await freePort());
    this.extraArgs = extraArgs;
    for (let i = 0; i < replicas; ++i) await this.start(i);
    this.nginxPort = await freePort();
    const prefix = path.join(this.dir, 'nginx');
    fs.mkdirSync(prefix, { recursive: true });
    const conf = path.join(prefix, 'nginx.conf');
    fs.writeFileSync(conf, nginxConf(prefix, this.nginxPort, this.ports));
    this.nginx = spawn('nginx', ['-p', prefix, '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.add(this.nginx);
    this.url = `http://127.0.0.1:${this.nginxPort}`;
    for (let i = 0; i < 100; ++i) {
      try {
        if ((await fetch(`${this.url}/healthz`)).ok) return this;
      } catch {
        // not yet
      }
      await sleep(50);
    }
    throw new Error('nginx did not answer');
  }

  env() {
    const mock = this.mockUrl;
    return {
      ...process.env,
      ANTHROPIC_BASE_URL: mock,
      DEEPSEEK_BASE_URL: `${mock}/deepseek/v1`,
      OPENCODE_GO_CHAT_BASE_URL: `${mock}/go/v1`,
      OPENCODE_GO_MESSAGES_BASE_URL: `${mock}/go`,
      OPENAI_BASE_URL: `${mock}/openai/v1`,
      GEMINI_BASE_URL: `${mock}/gemini`,
      ANTHROPIC_API_KEY: 'mock-anthropic-key',
      DEEPSEEK_API_KEY: 'mock-deepseek-key',
      OPENAI_API_KEY: 'mock-openai-key',
      GEMINI_API_KEY: 'mock-gemini-key',
      OPENCODE_GO_API_KEY: 'mock-go-key',
    };
  }

  replicaUrl(i) {
    return `http://127.0.0.1:${this.ports[i]}`;
  }

  // Starts replica i on its port (again after a stop); resolves when it listens.
  async start(i) {
    const args = [
      '--services', this.services,
      '--listen', `127.0.0.1:${this.ports[i]}`,
      '--database-url', databaseUrl,
      '--audit-spool', path.join(this.dir, `spool-${i}`, 'audit.spool'),
      '--replica-name', this.replicaName(i),
      '--workers', '1',
      '--max-connections-per-peer', '0',
      '--drain-delay-ms', '500',
      '--watch-ms', '200',
      ...this.extraArgs,
    ];
    // A replica restarted at once may find its port still held by the old process's last
    // connections for a moment: try a few times.
    for (let attempt = 0; ; ++attempt) {
      try {
        this.replicas[i] = await spawnChild(path.join(binDir, 'sluice'), args, this.env(), 'listening on ');
        return this.replicas[i];
      } catch (error) {
        if (attempt >= 20 || !String(error).includes('cannot listen')) throw error;
        await sleep(100);
      }
    }
  }

  kill(i, signal = 'SIGTERM') {
    this.replicas[i].kill(signal);
    return this.replicas[i].exited;
  }

  // SIGTERM, the drain, the exit, a start on the same port, and what a rolling-restart
  // controller waits for before the next replica: this one ready again, and back in nginx's pool
  // (a replica nginx saw refuse a connection sits out its fail_timeout, 2 s here).
  async restart(i) {
    const exited = await this.kill(i, 'SIGTERM');
    await this.start(i);
    for (const deadline = Date.now() + 20000; Date.now() < deadline; await sleep(100)) {
      try {
        if ((await fetch(`${this.replicaUrl(i)}/readyz`)).ok) break;
      } catch {
        // not yet
      }
    }
    await sleep(2500);
    return exited;
  }

  async stop() {
    const stops = [];
    for (const replica of this.replicas) {
      if (replica && replica.exitCode === null) {
        replica.kill('SIGTERM');
        stops.push(replica.exited);
      }
    }
    if (this.nginx) this.nginx.kill('SIGTERM');
    if (this.mock) this.mock.kill('SIGTERM');
    await Promise.all(stops);
    if (!process.env.SLUICE_FLEET_KEEP) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

export async function startFleet(options = {}) {
  return new Fleet(options).boot();
}

// Steady load: `concurrency` loops sending `request()` until stop() is called; counts outcomes.
export function steadyLoad(concurrency, request) {
  const counts = { ok: 0, failed: 0, errors: [], ids: [] };
  let running = true;
  const loops = [];
  for (let c = 0; c < concurrency; ++c) {
    loops.push((async () => {
      while (running) {
        try {
          const reply = await request();
          const body = await reply.text();
          if (reply.ok) {
            counts.ok += 1;
            const id = reply.headers.get('x-sluice-request-id');
            if (id) counts.ids.push(id);
          } else {
            counts.failed += 1;
            if (counts.errors.length < 20) counts.errors.push(`${reply.status} ${body.slice(0, 200)}`);
          }
        } catch (error) {
          counts.failed += 1;
          if (counts.errors.length < 20) counts.errors.push(String(error.cause ?? error));
        }
      }
    })());
  }
  return {
    counts,
    async stop() {
      running = false;
      await Promise.all(loops);
      return counts;
    },
  };
}
