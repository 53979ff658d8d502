// OpenTelemetry through Sluice, judged with the official OpenTelemetry JS packages: a collector
// stand-in receives what the gateway exports over OTLP/HTTP and decodes it with the OTLP protos
// @opentelemetry/otlp-transformer ships (its generated protobufjs root), never with Sluice's
// encoder. Checked: a client's traceparent is continued (the SERVER span is its child, same trace),
// each attempt sent is a CLIENT span with the GenAI attributes, the provider receives a
// traceparent naming that CLIENT span, a failover shows the failed attempt as an error span, a
// streamed answer has its first-token event, and with the collector gone requests still succeed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { execFileSync } from 'node:child_process';

import { binDir, startStack } from './lib/stack.mjs';

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const ExportLogsServiceRequest = root.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

// A collector stand-in: every OTLP/HTTP traces request decoded into plain spans, every logs
// request into plain log records.
function startCollector() {
  const spans = [];
  const logs = [];
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ url: req.url, headers: req.headers });
      if (req.url === '/v1/logs') {
        const decodedLogs = ExportLogsServiceRequest.toObject(ExportLogsServiceRequest.decode(body), {
          longs: String, bytes: String, enums: Number, defaults: false,
        });
        for (const rl of decodedLogs.resourceLogs ?? []) {
          const resource = Object.fromEntries((rl.resource?.attributes ?? []).map((a) => [a.key, a.value.stringValue]));
          for (const sl of rl.scopeLogs ?? []) {
            for (const record of sl.logRecords ?? []) logs.push({ ...record, resource });
          }
        }
        res.writeHead(200, { 'content-type': 'application/x-protobuf' });
        res.end();
        return;
      }
      const decoded = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
        longs: String, bytes: String, enums: Number, defaults: false,
      });
      for (const rs of decoded.resourceSpans ?? []) {
        const resource = Object.fromEntries((rs.resource?.attributes ?? []).map((a) => [a.key, a.value.stringValue]));
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) spans.push({ ...s, resource });
        }
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, spans, logs, requests, url: `http://127.0.0.1:${server.address().port}` })));
}

const hex = (b64) => Buffer.from(b64 ?? '', 'base64').toString('hex');
const attrs = (span) => Object.fromEntries((span.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? a.value.doubleValue]));

async function logsOf(collector, predicate) {
  for (let i = 0; i < 100; i++) {
    const found = collector.logs.filter(predicate);
    if (found.length > 0) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  return [];
}

async function spansOf(collector, predicate, count) {
  for (let i = 0; i < 100; i++) {
    const found = collector.spans.filter(predicate);
    if (found.length >= count) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  return collector.spans.filter(predicate);
}

function addFailoverModel(dir) {
  fs.appendFileSync(path.join(dir, 'ai/providers.yaml'), `
  gone:
    display_name: A provider that is down
    credential: anthropic
    retry: { attempts: 0 }
    timeouts: { connect_ms: 500, first_byte_ms: 5000, idle_ms: 5000 }
    endpoints:
      api: { wire: anthropic, url: "http://127.0.0.1:9" }
`);
  fs.appendFileSync(path.join(dir, 'ai/models.yaml'), `
  traced-failover:
    display_name: Failover under tracing
    upstream_model: claude-sonnet-5-5
    clients: [claude, openai]
    capabilities: [streaming, tools]
    limits: { context_window: 200000, max_output: 8192 }
    pricing: { input_per_million: 1.00, output_per_million: 2.00 }
`);
  fs.appendFileSync(path.join(dir, 'ai/deployments.yaml'), '  traced-failover: [gone/api, anthropic/api]\n');
  // Audit rows as log records through the generic endpoint, and a link to each trace.
  fs.appendFileSync(path.join(dir, 'ai/gateway.yaml'),
    '  telemetry:\n    audit_logs: true\n    trace_url: "https://tempo.example.com/trace/{trace_id}?from=sluice"\n');
}

describe('OpenTelemetry traces over OTLP/HTTP protobuf', () => {
  let collector;
  let stack;
  let failoverRequestId;
  before(async () => {
    collector = await startCollector();
    stack = await startStack({
      editCatalog: addFailoverModel,
      gatewayEnv: () => ({
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=e2e%20secret',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_SERVICE_NAME: 'sluice-e2e',
      }),
    });
  });
  after(async () => {
    await stack?.stop();
    collector?.server.close();
  });

  test('a failed-over request continues the client trace with one CLIENT span per attempt', async () => {
    const client = stack.anthropic({ headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: 'vendor=x' } });
    const { data: answer, response } = await client.messages
      .create({ model: 'traced-failover', max_tokens: 32, messages: [{ role: 'user', content: 'Hello' }] })
      .withResponse();
    assert.equal(answer.type, 'message');
    failoverRequestId = response.headers.get('x-sluice-request-id');
    assert.ok(failoverRequestId, 'the answer names its request');
    const [server] = await spansOf(collector, (s) => hex(s.traceId) === CLIENT_TRACE && s.kind === 2, 1);
    assert.ok(server, 'a SERVER span in the client trace');
    assert.equal(hex(server.parentSpanId), CLIENT_SPAN);
    assert.equal(server.traceState, 'vendor=x');
    assert.equal(server.name, 'POST /v1/messages');
    assert.equal(server.resource['service.name'], 'sluice-e2e');
    const a = attrs(server);
    assert.equal(a['gen_ai.request.model'], 'traced-failover');
    assert.equal(a['sluice.outcome'], 'ok');
    assert.equal(String(a['http.response.status_code']), '200');
    assert.match(a['sluice.route_match'], /failover/);

    const attempts = await spansOf(collector, (s) => hex(s.traceId) === CLIENT_TRACE && s.kind === 3, 2);
    assert.equal(attempts.length, 2);
    for (const span of attempts) {
      assert.equal(hex(span.parentSpanId), hex(server.spanId));
      assert.equal(span.name, 'chat traced-failover');
      assert.equal(attrs(span)['gen_ai.operation.name'], 'chat');
      assert.equal(attrs(span)['gen_ai.provider.name'], 'anthropic');
    }
    const failed = attempts.find((s) => attrs(s)['sluice.endpoint'] === 'gone/api');
    const served = attempts.find((s) => attrs(s)['sluice.endpoint'] === 'anthropic/api');
    assert.equal(failed.status.code, 2);
    assert.ok(attrs(failed)['error.type']);
    assert.ok(Number(attrs(served)['gen_ai.usage.input_tokens']) > 0);
    assert.ok(Number(attrs(served)['gen_ai.usage.output_tokens']) > 0);

    // The provider saw a traceparent naming the served attempt's span, in the client's trace.
    const seen = (await stack.mockRequests()).map((r) => r.headers?.traceparent ?? r.headers?.Traceparent).filter(Boolean);
    assert.ok(seen.includes(`00-${CLIENT_TRACE}-${hex(served.spanId)}-01`), `mock saw ${JSON.stringify(seen)}`);
    // The collector got the configured header.
    assert.equal(collector.requests[0].headers['x-collector-key'], 'e2e secret');
  });

  test('its audit row arrives as a log record under the SERVER span, and the audit shows the trace', async () => {
    assert.ok(failoverRequestId, 'the failover test ran first');
    const [record] = await logsOf(collector, (r) => attrs(r)['sluice.id'] === failoverRequestId);
    assert.ok(record, `a log record for request ${failoverRequestId}`);
    const a = attrs(record);
    assert.equal(a['event.name'], 'sluice.request');
    assert.equal(a['sluice.outcome'], 'ok');
    assert.equal(a['sluice.model'], 'traced-failover');
    assert.equal(String(a['sluice.status']), '200');
    assert.equal(record.severityText, 'INFO');
    assert.equal(record.resource['service.name'], 'sluice-e2e');
    assert.ok(JSON.parse(a['sluice.attempts']).length === 2, 'the attempts, as their JSON');
    assert.equal(a['sluice.request_body'], undefined, 'stored bodies stay in PostgreSQL');
    assert.equal(hex(record.traceId), CLIENT_TRACE);
    const [server] = await spansOf(collector, (s) => hex(s.traceId) === CLIENT_TRACE && s.kind === 2, 1);
    assert.equal(hex(record.spanId), hex(server.spanId));
    assert.equal(a['sluice.trace_id'], CLIENT_TRACE);

    // sluicectl audit names the trace and links to it with the catalog's trace_url.
    const shown = execFileSync(path.join(binDir, 'sluicectl'),
      ['--database-url', process.env.SLUICE_TEST_DATABASE_URL, '--services', stack.catalog, 'audit', failoverRequestId],
      { encoding: 'utf8' });
    assert.match(shown, new RegExp(`trace +${CLIENT_TRACE}  https://tempo\\.example\\.com/trace/${CLIENT_TRACE}\\?from=sluice`));
  });

  test('a streamed answer without a client trace is a root with a first-token event', async () => {
    const openai = stack.openai();
    const stream = await openai.chat.completions.create({ model: 'claude-sonnet-5-5', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    for await (const _ of stream) { /* drain */ }
    const servers = await spansOf(collector, (s) => s.kind === 2 && attrs(s)['gen_ai.request.model'] === 'claude-sonnet-5-5' && attrs(s)['sluice.stream'], 1);
    assert.equal(servers.length, 1);
    assert.equal(hex(servers[0].parentSpanId), '');
    assert.ok((servers[0].events ?? []).some((e) => e.name === 'gen_ai.first_token'));
  });
});

describe('with the collector gone', () => {
  let stack;
  before(async () => {
    stack = await startStack({
      gatewayEnv: () => ({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces',
        OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://127.0.0.1:9/v1/logs',
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_BLRP_SCHEDULE_DELAY: '50',
      }),
    });
  });
  after(async () => {
    await stack?.stop();
  });

  test('requests are answered as ever, and the spans and log records not exported are counted', async () => {
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const answer = await stack.anthropic().messages.create({ model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] });
      assert.equal(answer.type, 'message');
      assert.ok(Date.now() - started < 2000, 'no request waits on the collector');
    }
    const dropped = async (signal) => {
      let count = 0;
      for (let i = 0; i < 100 && count < 5; i++) {
        const text = await (await fetch(`${stack.gatewayUrl}/metrics`)).text();
        const line = text.split('\n').find((l) => l.startsWith(`gateway_telemetry_dropped_total{signal="${signal}"}`));
        count = line ? Number(line.split(' ').pop()) : 0;
        if (count < 5) await new Promise((r) => setTimeout(r, 100));
      }
      return count;
    };
    const spans = await dropped('traces');
    assert.ok(spans >= 5, `dropped spans counted: ${spans}`);
    const records = await dropped('logs');
    assert.ok(records >= 5, `dropped log records counted: ${records}`);
  });
});
