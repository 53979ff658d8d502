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

import { startStack } from './lib/stack.mjs';

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

// A collector stand-in: every OTLP/HTTP traces request decoded into plain spans.
function startCollector() {
  const spans = [];
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ url: req.url, headers: req.headers });
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
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, spans, requests, url: `http://127.0.0.1:${server.address().port}` })));
}

const hex = (b64) => Buffer.from(b64 ?? '', 'base64').toString('hex');
const attrs = (span) => Object.fromEntries((span.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? a.value.doubleValue]));

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
}

describe('OpenTelemetry traces over OTLP/HTTP protobuf', () => {
  let collector;
  let stack;
  before(async () => {
    collector = await startCollector();
    stack = await startStack({
      editCatalog: addFailoverModel,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=e2e%20secret',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_SERVICE_NAME: 'sluice-e2e',
      },
    });
  });
  after(async () => {
    await stack?.stop();
    collector?.server.close();
  });

  test('a failed-over request continues the client trace with one CLIENT span per attempt', async () => {
    const client = stack.anthropic({ headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: 'vendor=x' } });
    const answer = await client.messages.create({ model: 'traced-failover', max_tokens: 32, messages: [{ role: 'user', content: 'Hello' }] });
    assert.equal(answer.type, 'message');
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
    stack = await startStack({ env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces', OTEL_BSP_SCHEDULE_DELAY: '50' } });
  });
  after(async () => {
    await stack?.stop();
  });

  test('requests are answered as ever, and the spans not exported are counted', async () => {
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const answer = await stack.anthropic().messages.create({ model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] });
      assert.equal(answer.type, 'message');
      assert.ok(Date.now() - started < 2000, 'no request waits on the collector');
    }
    let dropped = 0;
    for (let i = 0; i < 60 && dropped < 5; i++) {
      const text = await (await fetch(`${stack.gatewayUrl}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('gateway_telemetry_dropped_total{signal="traces"}'));
      dropped = line ? Number(line.split(' ').pop()) : 0;
      if (dropped < 5) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(dropped >= 5, `dropped spans counted: ${dropped}`);
  });
});
