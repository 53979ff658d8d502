// The real `sluice` (PostgreSQL-backed, API keys required) in front of the real
// `sluice-mock-provider`, both on port 0, for the console's browser tests. Adapted from
// tests/e2e/lib/stack.mjs (copied, not imported: the two suites evolve apart).
//
// Each stack gets a scratch database (CREATE DATABASE sluice_console_<random> on
// $SLUICE_TEST_DATABASE_URL's server, dropped by stop()), a copy of the shipped catalog, an admin
// and a member made with `sluicectl users add` / `keys create`, and the member's personal key for
// opencode-go. DeepSeek's endpoint points at a closed port and deepseek-flash gets a second
// deployment (openai/responses), so deepseek-flash fails over. Data protection is declared with
// every provider `trusted_raw` but openai/responses, which is `public`: requests to it (gpt-5-5)
// are masked, and their audit rows carry the counts the request page shows. startGateway() adds a
// replica on the same database and catalog copy, optionally with that copy mounted read-only.

import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const sourceDir = process.env.SLUICE_SOURCE_DIR || path.resolve(here, '../../..');
export const binDir = process.env.SLUICE_BIN_DIR || path.join(sourceDir, 'build/bin');
export const fixturesDir = process.env.SLUICE_FIXTURES_DIR || path.join(sourceDir, 'tests/fixtures');
export const databaseUrl = process.env.SLUICE_TEST_DATABASE_URL || 'postgresql://sluice:sluice@127.0.0.1:5432/sluice';

const READY_TIMEOUT_MS = 20000;
const STOP_GRACE_MS = 5000;
const MASTER_KEY = crypto.randomBytes(32).toString('hex');

const children = new Set();
process.on('exit', () => {
  for (const child of children) {
    try { child.kill('SIGKILL'); } catch { /* gone */ }
  }
});

// `wrap`: run the binary through `wrap.command` with `wrap.prefix(binary)` before its arguments.
function startChild(name, args, env, wrap = null) {
  const binary = path.join(binDir, name);
  if (!fs.existsSync(binary)) return Promise.reject(new Error(`${binary} does not exist (build it, or set SLUICE_BIN_DIR)`));
  const child = wrap
    ? spawn(wrap.command, [...wrap.prefix(binary), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
      try { child.kill('SIGKILL'); } catch { /* gone */ }
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
      child.unref();
      child.stdout.unref?.();
      child.stderr.unref?.();
      const host = match[1].replace(/^\[(.*)\]$/, '$1');
      resolve({ child, host, port: Number(match[2]), url: `http://${host}:${match[2]}`, stderr: () => stderr });
    });
  });
}

function stopChild(proc) {
  if (!proc) return Promise.resolve();
  const { child } = proc;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    child.kill('SIGTERM');
  });
}

function withDatabaseName(url, name) {
  const u = new URL(url);
  u.pathname = '/' + name;
  return u.toString();
}

function psql(url, sql) {
  execFileSync('psql', [url, '-v', 'ON_ERROR_STOP=1', '-q', '-c', sql], { stdio: ['ignore', 'ignore', 'pipe'] });
}

// A port nothing listens on (bound, then closed).
async function closedPort() {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// `gatewayYaml`: more lines for gateway.yaml's `gateway:` block; `env`: more environment for every
// gateway of the stack.
export async function startStack({ gatewayYaml = '', env: extraEnv = {} } = {}) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-console-'));
  const catalog = path.join(work, 'services');
  fs.cpSync(path.join(sourceDir, 'services'), catalog, { recursive: true, dereference: true });
  // deepseek-flash gains a second deployment, so a refused deepseek/api fails over to it.
  const deployments = path.join(catalog, 'ai/deployments.yaml');
  const yaml = fs.readFileSync(deployments, 'utf8');
  const line = '  deepseek-flash: [deepseek/api]\n';
  if (!yaml.includes(line)) throw new Error(`${deployments}: no "${line.trim()}" line to add a failover deployment to`);
  fs.writeFileSync(deployments, yaml.replace(line, '  deepseek-flash: [deepseek/api, openai/responses]\n'));
  // Anthropic passes the caller's x-mock-script on, so a test can script the usage the mock reports.
  const providers = path.join(catalog, 'ai/providers.yaml');
  const providersYaml = fs.readFileSync(providers, 'utf8');
  const anchor = '  anthropic:\n';
  if (!providersYaml.includes(anchor)) throw new Error(`${providers}: no "${anchor.trim()}" provider to forward the mock's script to`);
  const agent = '    user_agent: sluice/1\n';
  const responses = 'responses: { wire: openai-responses, url: "${OPENAI_BASE_URL:-https://api.openai.com/v1}" }';
  if (!providersYaml.includes(agent) || !providersYaml.includes(responses)) {
    throw new Error(`${providers}: no "${agent.trim()}" lines or openai/responses endpoint to set trust tiers on`);
  }
  fs.writeFileSync(providers, providersYaml
    .replace(anchor, `${anchor}    forward_headers: [x-mock-script]\n`)
    .split(agent).join(`${agent}    trust: trusted_raw\n`)
    .replace(responses, responses.replace(/ }$/, ', trust: public }')));
  fs.appendFileSync(path.join(catalog, 'ai/gateway.yaml'), '  data_protection:\n    mask: [email, api_key]\n');
  // Traced requests (to a collector that is not there: spans are dropped, rows keep their trace
  // id) and a link to each trace on the request page.
  fs.appendFileSync(path.join(catalog, 'ai/gateway.yaml'),
    '  telemetry:\n    trace_url: "https://tempo.example.com/trace/{trace_id}"\n');
  if (gatewayYaml) fs.appendFileSync(path.join(catalog, 'ai/gateway.yaml'), gatewayYaml);
  const dbName = 'sluice_console_' + crypto.randomBytes(6).toString('hex');
  psql(databaseUrl, `CREATE DATABASE ${dbName}`);
  const dbUrl = withDatabaseName(databaseUrl, dbName);
  const stack = new Stack(work, catalog, dbUrl, dbName);
  stack.extraEnv = extraEnv;
  try {
    stack.sluicectl(['migrate']);
    stack.sluicectl(['users', 'add', 'root', '--role', 'admin']);
    stack.sluicectl(['users', 'add', 'alice', '--role', 'member', '--group', 'engineering', '--project', 'research']);
    stack.adminKey = stack.sluicectl(['keys', 'create', 'root', '--name', 'console-test']).trim().split('\n').pop();
    stack.memberKey = stack.sluicectl(['keys', 'create', 'alice', '--name', 'laptop']).trim().split('\n').pop();
    stack.sluicectl(['--services', catalog, 'credentials', 'set', 'opencode-go', '--user', 'alice'], 'go-key-of-alice\n');

    stack.mock = await startChild('sluice-mock-provider', ['--listen', '127.0.0.1:0', '--quiet', '--fixtures', fixturesDir], { ...process.env });
    stack.deadPort = await closedPort();
    stack.gateway = await stack.startGateway();
    stack.url = stack.gateway.url;
  } catch (err) {
    await stack.stop();
    throw err;
  }
  return stack;
}

// A gateway without a database or keys (--insecure-no-auth): the console must be off.
export async function startInsecureGateway() {
  const env = { ...process.env };
  delete env.SLUICE_DATABASE_URL;
  const gateway = await startChild('sluice', ['--services', path.join(sourceDir, 'services'), '--listen', '127.0.0.1:0',
    '--threads', '8', '--drain-seconds', '1', '--insecure-no-auth'], env);
  return { url: gateway.url, stop: () => stopChild(gateway) };
}

export class Stack {
  constructor(work, catalog, dbUrl, dbName) {
    this.work = work;
    this.catalog = catalog;
    this.dbUrl = dbUrl;
    this.dbName = dbName;
    this.gateways = [];
  }

  // A gateway on this stack's database, catalog copy and mock provider. `readOnlyCatalog`: in a
  // mount namespace of its own where the catalog directory is a read-only bind mount, as a
  // Kubernetes ConfigMap is (writes fail with EROFS, even for root); other gateways are unaffected.
  async startGateway({ readOnlyCatalog = false } = {}) {
    const env = { ...process.env };
    delete env.SLUICE_DATABASE_URL;
    Object.assign(env, {
      SLUICE_MASTER_KEY: MASTER_KEY,
      ANTHROPIC_BASE_URL: this.mock.url,
      DEEPSEEK_BASE_URL: `http://127.0.0.1:${this.deadPort}/deepseek/v1`,
      OPENCODE_GO_CHAT_BASE_URL: `${this.mock.url}/go/v1`,
      OPENCODE_GO_MESSAGES_BASE_URL: `${this.mock.url}/go`,
      OPENAI_BASE_URL: `${this.mock.url}/openai/v1`,
      GEMINI_BASE_URL: `${this.mock.url}/gemini`,
      ANTHROPIC_API_KEY: 'mock-anthropic-key',
      DEEPSEEK_API_KEY: 'mock-deepseek-key',
      OPENAI_API_KEY: 'mock-openai-key',
      GEMINI_API_KEY: 'mock-gemini-key',
      BEDROCK_BASE_URL: this.mock.url,
      GITHUB_MCP_URL: `${this.mock.url}/mcp`,
      GITHUB_MCP_TOKEN: 'mock-github-token',
      BEDROCK_ACCESS_KEY_ID: 'AKIDSLUICEMOCK',
      BEDROCK_SECRET_ACCESS_KEY: 'sluice-mock-secret-access-key',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${this.deadPort}/v1/traces`,
    }, this.extraEnv || {});
    const spool = path.join(this.work, `audit-${this.gateways.length}.spool`);
    const args = ['--services', this.catalog, '--listen', '127.0.0.1:0', '--threads', '64',
      '--drain-seconds', '1', '--database-url', this.dbUrl, '--audit-spool', spool];
    const gateway = readOnlyCatalog
      ? await startChild('sluice', args, env, {
        command: 'unshare',
        prefix: (binary) => [...(process.getuid() === 0 ? [] : ['--map-root-user']), '--mount', '--propagation', 'private',
          'sh', '-c', 'mount --bind -o ro "$0" "$0" && exec "$@"', this.catalog, binary],
      })
      : await startChild('sluice', args, env);
    this.gateways.push(gateway);
    return gateway;
  }

  sluicectl(args, input) {
    return execFileSync(path.join(binDir, 'sluicectl'), ['--database-url', this.dbUrl, ...args], {
      encoding: 'utf8', input: input ?? '', env: { ...process.env, SLUICE_MASTER_KEY: MASTER_KEY }, stdio: ['pipe', 'pipe', 'pipe'],
    });
  }

  // One Anthropic-wire request through the gateway with `key`.
  async message(key, model, text = 'Hello from the console test', headers = {}) {
    const reply = await fetch(`${this.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01', ...headers },
      body: JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: text }] }),
    });
    return { status: reply.status, id: reply.headers.get('x-sluice-request-id'), body: await reply.json() };
  }

  async stop() {
    await Promise.all([...this.gateways.map(stopChild), stopChild(this.mock)]);
    try { psql(databaseUrl, `DROP DATABASE IF EXISTS ${this.dbName} WITH (FORCE)`); } catch { /* harmless leftover */ }
    fs.rmSync(this.work, { recursive: true, force: true });
  }
}
