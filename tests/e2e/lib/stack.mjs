// The real `sluice` in front of the real `sluice-mock-provider`, both on port 0, and the official
// SDKs pointed at the gateway. One stack per test file (node --test runs each file in its own
// process); `startStack()` in `before`, `stack.stop()` in `after`.
//
// Binaries come from $SLUICE_BIN_DIR (default <repo>/build/bin); the catalog is a temporary copy of
// the shipped one (<repo>/services) whose providers also forward `x-mock-script`, so a test can
// script the mock per request through the gateway.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

const here = path.dirname(fileURLToPath(import.meta.url));
export const sourceDir = process.env.SLUICE_SOURCE_DIR || path.resolve(here, '../../..');
export const binDir = process.env.SLUICE_BIN_DIR || path.join(sourceDir, 'build/bin');
export const fixturesDir = process.env.SLUICE_FIXTURES_DIR || path.join(sourceDir, 'tests/fixtures');

const READY_TIMEOUT_MS = 15000;
const STOP_GRACE_MS = 5000;

// Every child this process started, so an abrupt exit still takes them down.
const children = new Set();
process.on('exit', () => {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
});

// Starts `binary args` and resolves with {child, host, port, url, stderr()} once it printed
// `listening on HOST:PORT`; rejects with its stderr when it exits or takes too long.
function startChild(name, args, env) {
  const binary = path.join(binDir, name);
  if (!fs.existsSync(binary)) {
    return Promise.reject(new Error(`${binary} does not exist (build it, or set SLUICE_BIN_DIR)`));
  }
  const child = spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (piece) => {
    stderr += piece;
    if (stderr.length > 1 << 20) stderr = stderr.slice(-(1 << 19));
  });
  child.on('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const fail = (why) => {
      clearTimeout(timer);
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
      reject(new Error(`${name} ${why}\n--- stderr ---\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`printed no "listening on" line within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    child.on('error', (err) => fail(`could not start: ${err.message}`));
    child.on('exit', (code, signal) => fail(`exited before listening (code ${code}, signal ${signal})`));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (piece) => {
      stdout += piece;
      const match = /^listening on (\S+):(\d+)\r?\n/m.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.on('exit', () => children.delete(child));
      // A child left running (a test file that never reached its `after`) must not keep this
      // process alive; the exit handler above kills it.
      child.unref();
      child.stdout.unref?.();
      child.stderr.unref?.();
      const host = match[1].replace(/^\[(.*)\]$/, '$1');
      const port = Number(match[2]);
      const hostForUrl = host.includes(':') ? `[${host}]` : host;
      resolve({ name, child, host, port, url: `http://${hostForUrl}:${port}`, stderr: () => stderr });
    });
  });
}

// SIGTERM, then SIGKILL after the grace period. Rejects, with the end of its stderr, when the child
// had already died on its own (a crash the test may only have seen as a connection error) or did
// not exit cleanly on SIGTERM.
function stopChild(proc) {
  if (!proc) return Promise.resolve();
  const { child } = proc;
  const died = (how) =>
    new Error(`${proc.name ?? 'child'} ${how}\n--- stderr (end) ---\n${(proc.stderr?.() ?? '').slice(-8192)}`);
  if (child.exitCode !== null || child.signalCode !== null) {
    return child.exitCode === 0
      ? Promise.resolve()
      : Promise.reject(died(`had exited on its own (code ${child.exitCode}, signal ${child.signalCode})`));
  }
  return new Promise((resolve, reject) => {
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, STOP_GRACE_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (killed || code === 0) resolve();
      else reject(died(`ended with code ${code}, signal ${signal} on SIGTERM`));
    });
    child.kill('SIGTERM');
  });
}

// A copy of the shipped catalog whose providers also forward the mock's script header.
function scriptableCatalog() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-e2e-'));
  fs.cpSync(path.join(sourceDir, 'services'), dir, { recursive: true, dereference: true });
  const file = path.join(dir, 'ai/providers.yaml');
  const anchor = '    user_agent: sluice/1\n';
  const yaml = fs.readFileSync(file, 'utf8');
  if (!yaml.includes(anchor)) throw new Error(`${file}: no "${anchor.trim()}" line to add forward_headers after`);
  fs.writeFileSync(file, yaml.split(anchor).join(`${anchor}    forward_headers: [x-mock-script]\n`));
  return dir;
}

// With a database (SLUICE_TEST_DATABASE_URL, set by scripts/test.sh) the gateway checks API keys
// as in production: a member and a key are made with sluicectl, and every SDK client presents
// that key (the Anthropic SDK as x-api-key, the OpenAI SDK as Authorization: Bearer). Without
// one the gateway runs with --insecure-no-auth.
function makeMemberKey(databaseUrl) {
  const sluicectl = path.join(binDir, 'sluicectl');
  const name = `e2e-${process.pid}-${Date.now()}`;
  const common = ['--database-url', databaseUrl, '--services', path.join(sourceDir, 'services')];
  execFileSync(sluicectl, [...common, 'users', 'add', name, '--role', 'member', '--project', 'e2e',
    '--primary-project', 'e2e'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const out = execFileSync(sluicectl, [...common, 'keys', 'create', name, '--name', 'e2e'], { encoding: 'utf8' });
  const key = out.trim().split('\n').pop();
  if (!key.startsWith('sk-sluice-')) throw new Error(`sluicectl keys create printed no key: ${out}`);
  return key;
}

// `editCatalog(dir, mockUrl)`, when given, changes the catalog copy before the gateway starts (a
// test file's own settings, e.g. gateway.data_protection). `mockArgs` are more flags for the mock;
// `gatewayEnv` more environment for the gateway (an object, or a function of the mock's URL).
export async function startStack({ editCatalog, mockArgs = [], gatewayEnv = {} } = {}) {
  const mock = await startChild(
    'sluice-mock-provider',
    ['--listen', '127.0.0.1:0', '--quiet', '--fixtures', fixturesDir, ...mockArgs],
    { ...process.env },
  );
  let catalog;
  let gateway;
  let apiKey;
  let launch;
  try {
    catalog = scriptableCatalog();
    if (editCatalog) editCatalog(catalog, mock.url);
    const env = { ...process.env };
    delete env.SLUICE_DATABASE_URL;
    Object.assign(env, {
      ANTHROPIC_BASE_URL: mock.url,
      DEEPSEEK_BASE_URL: `${mock.url}/deepseek/v1`,
      OPENCODE_GO_CHAT_BASE_URL: `${mock.url}/go/v1`,
      OPENCODE_GO_MESSAGES_BASE_URL: `${mock.url}/go`,
      OPENAI_BASE_URL: `${mock.url}/openai/v1`,
      GEMINI_BASE_URL: `${mock.url}/gemini`,
      ANTHROPIC_API_KEY: 'mock-anthropic-key',
      DEEPSEEK_API_KEY: 'mock-deepseek-key',
      OPENAI_API_KEY: 'mock-openai-key',
      GEMINI_API_KEY: 'mock-gemini-key',
      BEDROCK_BASE_URL: mock.url,
      GITHUB_MCP_URL: `${mock.url}/mcp`,
      GITHUB_MCP_TOKEN: 'mock-github-token',
      BEDROCK_ACCESS_KEY_ID: 'AKIDSLUICEMOCK',
      BEDROCK_SECRET_ACCESS_KEY: 'sluice-mock-secret-access-key',
    }, typeof gatewayEnv === 'function' ? gatewayEnv(mock.url) : gatewayEnv);
    const databaseUrl = process.env.SLUICE_TEST_DATABASE_URL;
    const identity = databaseUrl
      ? ['--database-url', databaseUrl, '--audit-spool', path.join(catalog, 'audit.spool')]
      : ['--insecure-no-auth'];
    apiKey = databaseUrl ? makeMemberKey(databaseUrl) : 'sk-e2e-anonymous';
    // A short drain: the SDKs keep idle connections open (undici closes them after 4 s), and
    // the gateway waits for them on SIGTERM.
    launch = {
      args: ['--services', catalog, '--listen', '127.0.0.1:0', '--threads', '64', '--drain-seconds', '1', ...identity],
      env,
    };
    gateway = await startChild('sluice', launch.args, launch.env);
  } catch (err) {
    await stopChild(mock);
    if (catalog) fs.rmSync(catalog, { recursive: true, force: true });
    throw err;
  }
  return new Stack(mock, gateway, catalog, apiKey, launch);
}

export class Stack {
  constructor(mock, gateway, catalog, apiKey, launch) {
    this.launch = launch;
    this.replicas = [];
    this.apiKey = apiKey;
    this.mock = mock;
    this.gateway = gateway;
    this.catalog = catalog;
    this.mockUrl = mock.url;
    this.gatewayUrl = gateway.url;
  }

  // The Anthropic SDK against the gateway. `script` (an object) becomes the x-mock-script header.
  anthropic({ script, headers = {}, ...options } = {}) {
    return new Anthropic({
      baseURL: this.gatewayUrl,
      apiKey: this.apiKey,
      maxRetries: 0,
      timeout: 20000,
      defaultHeaders: { ...headers, ...(script ? { 'x-mock-script': JSON.stringify(script) } : {}) },
      ...options,
    });
  }

  // The OpenAI SDK against the gateway's /v1.
  openai({ script, headers = {}, ...options } = {}) {
    return new OpenAI({
      baseURL: `${this.gatewayUrl}/v1`,
      apiKey: this.apiKey,
      maxRetries: 0,
      timeout: 20000,
      defaultHeaders: { ...headers, ...(script ? { 'x-mock-script': JSON.stringify(script) } : {}) },
      ...options,
    });
  }

  // GET/POST on the mock's own /_mock/... endpoints.
  async mockJson(pathname, method = 'GET') {
    const reply = await fetch(`${this.mockUrl}${pathname}`, { method });
    if (!reply.ok) throw new Error(`${method} ${pathname} on the mock: ${reply.status} ${await reply.text()}`);
    return reply.json();
  }

  // The provider requests the mock received, oldest first (at most the last 100).
  async mockRequests() {
    const all = await this.mockJson('/_mock/requests');
    return Array.isArray(all) ? all : all.requests;
  }

  // A second gateway process on the same catalog, database and environment (another replica of
  // the fleet): {url}. Stopped with the stack.
  async startReplica() {
    const spool = ['--audit-spool', path.join(this.catalog, `audit-${this.replicas.length + 2}.spool`)];
    const args = this.launch.args.filter((arg, i, all) => arg !== '--audit-spool' && all[i - 1] !== '--audit-spool');
    const replica = await startChild('sluice', [...args, ...(args.includes('--database-url') ? spool : [])], this.launch.env);
    this.replicas.push(replica);
    return replica;
  }

  async stop() {
    const stopped = await Promise.allSettled([stopChild(this.gateway), stopChild(this.mock),
      ...this.replicas.map((replica) => stopChild(replica))]);
    fs.rmSync(this.catalog, { recursive: true, force: true });
    for (const { status, reason } of stopped) if (status === 'rejected') throw reason;
  }
}

// The models of the shipped catalog, one per provider wire.
export const MODELS = [
  { model: 'claude-sonnet-5-5', wire: 'anthropic', upstream: 'claude-sonnet-5-5' },
  { model: 'deepseek-flash', wire: 'openai-chat', upstream: 'deepseek-flash' },
  { model: 'gpt-5-5', wire: 'openai-responses', upstream: 'gpt-5-5' },
  { model: 'gemini-3-flash', wire: 'gemini', upstream: 'gemini-3-flash' },
];

// The mock's token count: ceil(UTF-8 bytes / 4).
export function tokens(text) {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

export function mockText(upstreamModel) {
  return `Hello from the mock provider (${upstreamModel}).`;
}

export function mockThinking(upstreamModel) {
  return `Thinking about the request to ${upstreamModel}: a short greeting will do.`;
}

export function mockSignature(upstreamModel) {
  return Buffer.from(`sluice-mock-signature/${upstreamModel}`).toString('base64');
}

// The thoughtSignature the mock's Gemini puts on the call at `position` of its answer to request
// `seq` (docs/mock-provider.md); the mock refuses a later turn where it does not come back.
export function mockCallSignature(upstreamModel, seq, position, name) {
  return Buffer.from(`sluice-mock-thought-signature/${upstreamModel}/${seq}/${position}/${name}`).toString('base64');
}
