// The MCP gateway, judged by the official MCP SDK (@modelcontextprotocol/sdk) on both sides: its
// McpServer (Streamable HTTP, stateful) is the upstream server, its Client the agent. Through
// Sluice the client lists only the tools its member may call, calls one (served, one audit row,
// the arguments masked on their way to a public server and restored in the result), is refused
// another (a JSON-RPC error and an audit row; the server never sees the call), and a member
// without access to the server is refused at `initialize`. Sessions are the gateway's sealed ids:
// another member's does not open. Needs PostgreSQL (SLUICE_TEST_DATABASE_URL): identity and the
// audit trail are what is tested.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { startMcpServer } from './lib/mcp_server.mjs';
import { binDir, sourceDir, startStack } from './lib/stack.mjs';

const databaseUrl = process.env.SLUICE_TEST_DATABASE_URL;
const claudeBin = path.join(path.dirname(fileURLToPath(import.meta.url)), 'node_modules/.bin/claude');
const codexBin = path.join(path.dirname(fileURLToPath(import.meta.url)), 'node_modules/.bin/codex');
// OpenCode's own x64 Linux build (npm opencode-linux-x64-baseline, the binary the opencode-ai wrapper
// would pick on a CPU without AVX2); the wrapper's lock needs every platform's package, which the
// registry mirror CI uses does not carry.
const opencodeBin = path.join(path.dirname(fileURLToPath(import.meta.url)), 'node_modules/opencode-linux-x64-baseline/bin/opencode');

// Runs `binary args` asynchronously (the upstream MCP server runs in this process and must go on
// answering): {status, out} with stdout and stderr together; killed after `timeout` ms.
function runAgent(binary, args, { cwd, env, timeout = 120000 }) {
  return new Promise((resolve) => {
    const child = spawn(binary, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (piece) => { out += piece; });
    child.stderr.on('data', (piece) => { out += piece; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
  });
}
const UPSTREAM_TOKEN = 'upstream-platform-token-0123456789';
const EMAIL = 'fox.mulder@example.com';
const OUTSIDER_PROJECT = `outsiders${process.pid}`;

let stack;
let sseServer;
let jsonServer;
let outsiderKey;
let quotaKey;
const QUOTA_MEMBER = `e2e-mcp-quota-${process.pid}-${Date.now()}`;

function sluicectl(...args) {
  return execFileSync(path.join(binDir, 'sluicectl'),
    ['--database-url', databaseUrl, '--services', path.join(sourceDir, 'services'), ...args], { encoding: 'utf8' });
}

function psql(query) {
  return execFileSync('psql', ['-X', '-q', '-tA', databaseUrl, '-c', query], { encoding: 'utf8' }).trim();
}

// The audit row of request `id`, waited for (the writer commits in batches).
async function auditRow(id) {
  const deadline = Date.now() + 10000;
  for (;;) {
    const text = psql(`SELECT row_to_json(r) FROM (SELECT outcome, status, route_match, requested_model, model, masked,
      unit, units, error_key, client_wire, user_name, served_provider FROM ai_requests WHERE id = '${id}') r`);
    if (text) return JSON.parse(text);
    if (Date.now() > deadline) throw new Error(`no audit row for ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function connectClient(server, key, { onResponse } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.gatewayUrl}/mcp/${server}`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: async (url, init) => {
      const reply = await fetch(url, init);
      onResponse?.(reply);
      return reply;
    },
  });
  const client = new Client({ name: 'sluice-e2e', version: '1.0.0' });
  return { client, transport, connect: () => client.connect(transport) };
}

before(async () => {
  assert.ok(databaseUrl, 'SLUICE_TEST_DATABASE_URL must name the test database (scripts/test.sh sets it)');
  sseServer = await startMcpServer({ jsonResponse: false });
  jsonServer = await startMcpServer({ jsonResponse: true });
  stack = await startStack({
    editCatalog(dir) {
      fs.appendFileSync(path.join(dir, 'ai/credentials.yaml'),
        '  tools-token:\n    kind: platform\n    description: The tool servers\' token\n    secret: env:SLUICE_E2E_MCP_TOKEN\n');
      fs.appendFileSync(path.join(dir, 'ai/providers.yaml'), `
  tools:
    display_name: E2E tools
    credential: tools-token
    trust: public
    endpoints:
      mcp: { wire: mcp, url: "${sseServer.url}" }

  tools-json:
    display_name: E2E tools (JSON answers)
    credential: tools-token
    trust: trusted_raw
    endpoints:
      mcp: { wire: mcp, url: "${jsonServer.url}", auth_header: X-Tools-Key }
`);
      // The shipped gateway.yaml ends with its quota windows: one more, counting tool calls.
      const gateway = path.join(dir, 'ai/gateway.yaml');
      const lines = fs.readFileSync(gateway, 'utf8').trimEnd().split('\n');
      assert.match(lines.at(-1), /^ {6}- \{ id: /, 'gateway.yaml no longer ends with its quota windows');
      fs.appendFileSync(gateway, `      - { id: mcp-tool-calls, per: user, seconds: 3600, mode: enforce, unit: tool_calls,
          overrides: { member/${QUOTA_MEMBER}: { max_tool_calls: 1 } } }
  data_protection:
    mask: [email, api_key]
`);
      fs.appendFileSync(path.join(dir, 'access-control/rules.yaml'), `
  - entity: mcp_server/tools
    default: open
    why: Outside contractors do not use the tool servers.
    deny: { project: [${OUTSIDER_PROJECT}] }
  - entity: mcp_tool/tools/delete_*
    default: closed
    why: Destructive tools need an approval.
`);
    },
    gatewayEnv: {
      SLUICE_E2E_MCP_TOKEN: UPSTREAM_TOKEN,
      SLUICE_MASTER_KEY: '0f'.repeat(32),
    },
  });
  const outsider = `e2e-outsider-${process.pid}-${Date.now()}`;
  sluicectl('users', 'add', outsider, '--role', 'member', '--project', OUTSIDER_PROJECT,
    '--primary-project', OUTSIDER_PROJECT);
  outsiderKey = sluicectl('keys', 'create', outsider, '--name', 'e2e').trim().split('\n').pop();
  sluicectl('users', 'add', QUOTA_MEMBER, '--role', 'member', '--project', 'e2e', '--primary-project', 'e2e');
  quotaKey = sluicectl('keys', 'create', QUOTA_MEMBER, '--name', 'e2e').trim().split('\n').pop();
});

after(async () => {
  await stack?.stop();
  await sseServer?.close();
  await jsonServer?.close();
});

describe('MCP gateway', () => {
  test('lists only the tools the member may call, with the platform token upstream and never the key', async () => {
    const { client, connect } = connectClient('tools', stack.apiKey);
    await connect();
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    assert.deepEqual(names, ['add', 'echo', 'fail', 'slow_count']);
    for (const seen of sseServer.seen) {
      assert.equal(seen.headers.authorization, `Bearer ${UPSTREAM_TOKEN}`);
      assert.ok(!JSON.stringify(seen.headers).includes(stack.apiKey), 'the caller\'s key reached the server');
    }
    // The client's session id is the gateway's sealed one, not the server's.
    const serverSessions = [...sseServer.sessions.keys()];
    assert.ok(serverSessions.length >= 1);
    await client.close();
  });

  test('a call is served, audited once, its arguments masked upstream and restored in the result', async () => {
    let requestId;
    const { client, connect } = connectClient('tools', stack.apiKey, {
      onResponse: (reply) => {
        requestId = reply.headers.get('x-sluice-request-id') ?? requestId;
      },
    });
    await connect();
    const result = await client.callTool({ name: 'echo', arguments: { text: `write to ${EMAIL} today` } });
    assert.equal(result.content[0].text, `echo: write to ${EMAIL} today`);
    const call = sseServer.seen.filter((seen) => seen.body.includes('"tools/call"')).at(-1);
    assert.ok(call, 'the server got the call');
    assert.ok(!call.body.includes(EMAIL), `the public server got the e-mail address: ${call.body}`);
    assert.match(call.body, /EMAIL_1/);
    const row = await auditRow(requestId);
    assert.equal(row.outcome, 'ok');
    assert.equal(row.client_wire, 'mcp');
    assert.equal(row.route_match, 'endpoint:mcp;mcp:tools;tool:echo');
    assert.equal(row.requested_model, 'echo');
    assert.equal(row.served_provider, 'tools');
    assert.deepEqual(row.masked, { email: 1 });
    assert.equal(row.unit, 'tool_calls');
    assert.equal(Number(row.units), 1);
    await client.close();
  });

  test('a tool the rules close is refused with a JSON-RPC error, audited, and never reaches the server', async () => {
    let requestId;
    const { client, connect } = connectClient('tools', stack.apiKey, {
      onResponse: (reply) => {
        requestId = reply.headers.get('x-sluice-request-id') ?? requestId;
      },
    });
    await connect();
    await assert.rejects(client.callTool({ name: 'delete_repository', arguments: { name: 'prod' } }), (error) => {
      assert.equal(error.code, -32001);
      assert.match(error.message, /authz denied \[mcp_tool\/tools\/delete_\*\]: Destructive tools need an approval/);
      return true;
    });
    assert.deepEqual(sseServer.seen.deleted, []);
    const row = await auditRow(requestId);
    assert.equal(row.outcome, 'access_denied');
    assert.equal(row.route_match, 'endpoint:mcp;mcp:tools;tool:delete_repository');
    await client.close();
  });

  test('a tool-calls quota window refuses the call past its limit, listings not counted', async () => {
    const { client, connect } = connectClient('tools', quotaKey);
    await connect();
    const first = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    assert.equal(first.content[0].text, '3');
    await client.listTools();  // not a tool call: not counted
    const before = sseServer.seen.filter((seen) => seen.body.includes('"tools/call"')).length;
    await assert.rejects(client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }), (error) => {
      assert.equal(error.code, -32003);
      assert.match(error.message, /quota 'mcp-tool-calls' exceeded for user .*: 1 of 1 tool calls used/);
      return true;
    });
    assert.equal(sseServer.seen.filter((seen) => seen.body.includes('"tools/call"')).length, before,
      'the refused call never reached the server');
    // Model requests are not tool calls: the member's chat still works.
    const message = await stack.anthropic({ apiKey: quotaKey }).messages.create({
      model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(message.type, 'message');
    await client.close();
  });

  test('a member without access to the server is refused at initialize', async () => {
    const before = sseServer.seen.length;
    const { connect } = connectClient('tools', outsiderKey);
    await assert.rejects(connect(), /403|authz denied/);
    assert.equal(sseServer.seen.length, before, 'the server was not asked');
  });

  test('a streamed call relays progress notifications as they come', async () => {
    const { client, connect } = connectClient('tools', stack.apiKey);
    await connect();
    const progress = [];
    const result = await client.callTool({ name: 'slow_count', arguments: { upto: 4 } }, undefined, {
      onprogress: (update) => progress.push(update.progress),
    });
    assert.equal(result.content[0].text, 'counted to 4');
    assert.deepEqual(progress, [1, 2, 3, 4]);
    await client.close();
  });

  test('a tool that reports an error is served and its row says tool_error', async () => {
    let requestId;
    const { client, connect } = connectClient('tools', stack.apiKey, {
      onResponse: (reply) => {
        requestId = reply.headers.get('x-sluice-request-id') ?? requestId;
      },
    });
    await connect();
    const result = await client.callTool({ name: 'fail', arguments: {} });
    assert.equal(result.isError, true);
    const row = await auditRow(requestId);
    assert.equal(row.outcome, 'ok');
    assert.equal(row.error_key, 'tool_error');
    await client.close();
  });

  test('a server answering JSON, with its token in its own header, and a resource read', async () => {
    const { client, connect } = connectClient('tools-json', stack.apiKey);
    await connect();
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'delete_repository'), 'no rule closes tools-json\'s tools');
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    assert.equal(sum.content[0].text, '42');
    const readme = await client.readResource({ uri: 'file:///readme.md' });
    assert.match(readme.contents[0].text, /hello/);
    for (const seen of jsonServer.seen) {
      assert.equal(seen.headers['x-tools-key'], UPSTREAM_TOKEN);
      assert.equal(seen.headers.authorization, undefined);
    }
    await client.close();
  });

  test('another member\'s session id is not found; a client without a key learns where to authorise', async () => {
    let session;
    const { client, connect } = connectClient('tools', stack.apiKey, {
      onResponse: (reply) => {
        session = reply.headers.get('mcp-session-id') ?? session;
      },
    });
    await connect();
    assert.match(session, /^mcp1-/);
    assert.ok(!sseServer.sessions.has(session), 'the client got the server\'s own session id');
    const stolen = await fetch(`${stack.gatewayUrl}/mcp/tools`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${outsiderKey}`, 'Mcp-Session-Id': session, 'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    // The outsider is refused at the server's rule before the session is even opened.
    assert.equal(stolen.status, 403);
    await client.close();

    const anonymous = await fetch(`${stack.gatewayUrl}/mcp/tools`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    assert.equal(anonymous.status, 401);
    const challenge = anonymous.headers.get('www-authenticate');
    assert.match(challenge, /^Bearer /);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)[1];
    const metadata = await (await fetch(metadataUrl)).json();
    assert.equal(metadata.resource, `${stack.gatewayUrl}/mcp/tools`);
    assert.deepEqual(metadata.bearer_methods_supported, ['header']);
    const body = await anonymous.json();
    assert.equal(body.jsonrpc, '2.0');
    assert.equal(body.error.data.error_key, 'invalid_api_key');
  });

  test('the federated /mcp lists every open server\'s tools prefixed, and calls through the right one', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${stack.gatewayUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${stack.apiKey}` } },
    });
    const client = new Client({ name: 'sluice-e2e-federated', version: '1.0.0' });
    if (process.env.SLUICE_E2E_VERBOSE) {
      const send = transport.send.bind(transport);
      transport.send = async (message, options) => {
        console.log('send', JSON.stringify(message).slice(0, 120), transport.sessionId);
        return send(message, options);
      };
    }
    await client.connect(transport);
    assert.equal(client.getServerVersion().name, 'sluice');
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    assert.ok(names.includes('tools__echo') && names.includes('tools-json__add'), names.join(', '));
    assert.ok(names.includes('tools-json__delete_repository'), 'tools-json has no rule closing it');
    assert.ok(!names.includes('tools__delete_repository'), 'the rule closing tools\' delete_* applies here too');
    const sum = await client.callTool({ name: 'tools-json__add', arguments: { a: 20, b: 22 } });
    assert.equal(sum.content[0].text, '42');
    const echoed = await client.callTool({ name: 'tools__echo', arguments: { text: `to ${EMAIL}` } });
    assert.equal(echoed.content[0].text, `echo: to ${EMAIL}`);
    await assert.rejects(client.callTool({ name: 'tools__delete_repository', arguments: { name: 'x' } }),
      (error) => error.code === -32001);
    await assert.rejects(client.callTool({ name: 'nowhere__echo', arguments: {} }), (error) => error.code === -32602);
    const { prompts } = await client.listPrompts();
    assert.ok(prompts.some((prompt) => prompt.name === 'tools__review'), prompts.map((p) => p.name).join(', '));
    const review = await client.getPrompt({ name: 'tools__review', arguments: { diff: `mail ${EMAIL}` } });
    assert.equal(review.messages[0].content.text, `Review this: mail ${EMAIL}`);  // masked upstream, restored
    await assert.rejects(client.readResource({ uri: 'file:///readme.md' }), (error) => error.code === -32601);
    await client.close();
    // The outsider's project is denied `tools`: only tools-json's tools are theirs.
    const outsider = new Client({ name: 'sluice-e2e-outsider', version: '1.0.0' });
    await outsider.connect(new StreamableHTTPClientTransport(new URL(`${stack.gatewayUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${outsiderKey}` } },
    }));
    const theirs = (await outsider.listTools()).tools.map((tool) => tool.name);
    assert.ok(theirs.some((name) => name.startsWith('tools-json__')), theirs.join(', '));
    assert.ok(!theirs.some((name) => name.startsWith('tools__')), theirs.join(', '));
    await assert.rejects(outsider.callTool({ name: 'tools__echo', arguments: { text: 'x' } }),
      (error) => error.code === -32602);
    await outsider.close();
  });

  test('the shipped example server, GitHub, answered by the mock provider\'s own MCP server', async () => {
    const { client, connect } = connectClient('github', stack.apiKey);
    await connect();
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    // The shipped rules close delete_* to members.
    assert.deepEqual(names, ['add', 'echo']);
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'from the demo' } });
    assert.equal(echoed.content[0].text, 'echo: from the demo');
    await client.close();
  });

  test('a replica that did not open the session serves its next message (the same master key)', async () => {
    const replica = await stack.startReplica();
    let session;
    const { client, connect } = connectClient('tools', stack.apiKey, {
      onResponse: (reply) => {
        session = reply.headers.get('mcp-session-id') ?? session;
      },
    });
    await connect();
    const headers = { Authorization: `Bearer ${stack.apiKey}`, 'Mcp-Session-Id': session,
      'MCP-Protocol-Version': '2025-06-18', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const before = sseServer.seen.length;
    const reply = await fetch(`${replica.url}/mcp/tools`, {
      method: 'POST', headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'add', arguments: { a: 40, b: 2 } } }),
    });
    assert.equal(reply.status, 200);
    assert.match(await reply.text(), /"text":"42"/);
    // The server got its own session id from the other replica, so its session went on.
    const call = sseServer.seen.slice(before).find((seen) => seen.body.includes('"tools/call"'));
    assert.ok(call && sseServer.sessions.has(call.headers['mcp-session-id']), 'the server\'s own session id was sent');
    await client.close();
  });

  test('hostile bodies are refused in JSON-RPC: a batch, broken JSON, an unknown server', async () => {
    const post = (server, body) => fetch(`${stack.gatewayUrl}/mcp/${server}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${stack.apiKey}`, 'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream' },
      body,
    });
    const batch = await post('tools', JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }]));
    assert.equal(batch.status, 400);
    assert.equal((await batch.json()).error.code, -32600);
    const broken = await post('tools', '{"jsonrpc": "2.0", "id": 1, "method": ');
    assert.equal(broken.status, 400);
    assert.equal((await broken.json()).error.code, -32700);
    const unknown = await post('no-such-server', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.data.error_key, 'mcp_server_not_found');
    const noName = await post('tools', JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: {} }));
    assert.equal(noName.status, 400);
    const refused = await noName.json();
    assert.equal(refused.error.code, -32602);
    assert.equal(refused.id, 2);
  });

  // A real coding agent: Claude Code (npm @anthropic-ai/claude-code) adds the server the way its
  // docs say, lists it (its health check runs initialize and tools/list through the gateway), then
  // runs one turn against the gateway's /v1/messages (the mock model is scripted to call the MCP
  // tool) and calls the tool through /mcp/tools. Offline: every request goes to the gateway.
  test('Claude Code adds, lists and calls a tool through the gateway', async () => {
    assert.ok(fs.existsSync(claudeBin), `${claudeBin} is missing (npm ci in tests/e2e)`);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-claude-'));
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-claude-work-'));
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_BASE_URL: stack.gatewayUrl,
      ANTHROPIC_API_KEY: stack.apiKey,
      ANTHROPIC_MODEL: 'claude-sonnet-5-5',
      ANTHROPIC_SMALL_FAST_MODEL: 'claude-sonnet-5-5',
      ANTHROPIC_CUSTOM_HEADERS: `x-mock-script: ${JSON.stringify({ tool_name: 'mcp__sluice__echo',
        tool_arguments: { text: `ping ${EMAIL}` } })}`,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    };
    const claude = (args, timeout = 90000) => runAgent(claudeBin, args, { cwd: work, env, timeout });
    try {
      const added = await claude(['mcp', 'add', '--transport', 'http', 'sluice', `${stack.gatewayUrl}/mcp/tools`,
        '--header', `Authorization: Bearer ${stack.apiKey}`]);
      assert.equal(added.status, 0, added.out);
      const listed = await claude(['mcp', 'list']);
      assert.equal(listed.status, 0, listed.out);
      assert.match(listed.out, /sluice: .*\/mcp\/tools.*Connected/, listed.out);

      const callsBefore = sseServer.seen.filter((seen) => seen.body.includes('"tools/call"')).length;
      const turn = await claude(['-p', 'Use the echo tool, please.', '--allowedTools', 'mcp__sluice__echo',
        '--output-format', 'json', '--max-turns', '3'], 120000);
      assert.equal(turn.status, 0, turn.out);
      if (process.env.SLUICE_E2E_VERBOSE) console.log(turn.out);
      const calls = sseServer.seen.filter((seen) => seen.body.includes('"tools/call"'));
      assert.equal(calls.length, callsBefore + 1, `the tool was called once through the gateway: ${turn.out}`);
      const call = JSON.parse(calls.at(-1).body);
      assert.equal(call.params.name, 'echo');
      assert.ok(!calls.at(-1).body.includes(EMAIL), 'the public server got the e-mail address');
      assert.equal(calls.at(-1).headers.authorization, `Bearer ${UPSTREAM_TOKEN}`);
      // The tool's result went back to the model restored: the model's next turn carried it.
      const requests = await stack.mockRequests();
      const results = requests.filter((request) => request.body.includes('tool_result'));
      assert.ok(results.length > 0, 'Claude Code sent the tool result back');
      assert.match(results.at(-1).body, /echo: ping /);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(work, { recursive: true, force: true });
    }
  });

  // Codex (npm @openai/codex): the MCP server in ~/.codex/config.toml as the Connect page writes
  // it (url and bearer_token_env_var), a turn on the gateway's /v1/responses in which the mock
  // model calls the MCP tool the way Codex declares it (a function of the namespace tool
  // mcp__sluice), and the call going through /mcp/tools.
  test('Codex lists and calls a tool through the gateway', async () => {
    assert.ok(fs.existsSync(codexBin), `${codexBin} is missing (npm ci in tests/e2e)`);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-codex-'));
    const codexHome = path.join(home, '.codex');
    fs.mkdirSync(codexHome);
    const script = JSON.stringify({ tool_name: 'echo', tool_namespace: 'mcp__sluice', tool_arguments: { text: 'from codex' } });
    fs.writeFileSync(path.join(codexHome, 'config.toml'), `model = "gpt-5-5"
model_provider = "sluice"

[model_providers.sluice]
name = "Sluice"
base_url = "${stack.gatewayUrl}/v1"
env_key = "SLUICE_API_KEY"
wire_api = "responses"
http_headers = { "x-mock-script" = ${JSON.stringify(script)} }

[mcp_servers.sluice]
url = "${stack.gatewayUrl}/mcp/tools"
bearer_token_env_var = "SLUICE_API_KEY"
`);
    try {
      const callsBefore = sseServer.seen.filter((seen) => seen.body.includes('"tools/call"')).length;
      const turn = await runAgent(codexBin, ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox',
        'Use the echo tool, please.'], {
        cwd: home,
        env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: codexHome, SLUICE_API_KEY: stack.apiKey },
      });
      assert.equal(turn.status, 0, turn.out);
      assert.match(turn.out, /mcp: sluice\/echo \(completed\)/, turn.out);
      const calls = sseServer.seen.filter((seen) => seen.body.includes('"tools/call"'));
      assert.equal(calls.length, callsBefore + 1, turn.out);
      assert.equal(JSON.parse(calls.at(-1).body).params.name, 'echo');
      assert.equal(calls.at(-1).headers.authorization, `Bearer ${UPSTREAM_TOKEN}`);
      const requests = await stack.mockRequests();
      assert.ok(requests.some((request) => request.body.includes('function_call_output') && request.body.includes('echo: from codex')),
        'Codex sent the tool result back to the model');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  // OpenCode (npm opencode-linux-x64-baseline): the `mcp` block the Connect page gives (a remote server with the
  // key in an Authorization header), a turn on the gateway's /v1/chat/completions in which the
  // mock model calls OpenCode's name for the tool (`sluice_echo`), and the call through /mcp/tools.
  test('OpenCode lists and calls a tool through the gateway', async () => {
    assert.ok(fs.existsSync(opencodeBin), `${opencodeBin} is missing (npm ci in tests/e2e)`);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-opencode-'));
    const script = JSON.stringify({ tool_name: 'sluice_echo', tool_arguments: { text: 'from opencode' } });
    fs.writeFileSync(path.join(home, 'opencode.json'), JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      model: 'sluice/deepseek-flash',
      provider: {
        sluice: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Sluice',
          options: { baseURL: `${stack.gatewayUrl}/v1`, apiKey: '{env:SLUICE_API_KEY}', headers: { 'x-mock-script': script } },
          models: { 'deepseek-flash': { name: 'DeepSeek Flash' } },
        },
      },
      mcp: { sluice: { type: 'remote', url: `${stack.gatewayUrl}/mcp/tools`, headers: { Authorization: 'Bearer {env:SLUICE_API_KEY}' } } },
    }));
    try {
      const callsBefore = sseServer.seen.filter((seen) => seen.body.includes('"tools/call"')).length;
      const turn = await runAgent(opencodeBin, ['run', 'Use the echo tool, please.'], {
        cwd: home,
        env: { PATH: process.env.PATH, HOME: home, SLUICE_API_KEY: stack.apiKey, OPENCODE_DISABLE_AUTOUPDATE: '1' },
      });
      assert.equal(turn.status, 0, turn.out);
      const calls = sseServer.seen.filter((seen) => seen.body.includes('"tools/call"'));
      assert.equal(calls.length, callsBefore + 1, turn.out);
      assert.deepEqual(JSON.parse(calls.at(-1).body).params.arguments, { text: 'from opencode' });
      assert.equal(calls.at(-1).headers.authorization, `Bearer ${UPSTREAM_TOKEN}`);
      const requests = await stack.mockRequests();
      assert.ok(requests.some((request) => request.body.includes('"role":"tool"') && request.body.includes('echo: from opencode')),
        'OpenCode sent the tool result back to the model');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
