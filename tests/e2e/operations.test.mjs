// The /v1 endpoints besides chat through the official `openai` SDK: embeddings get the provider's
// vectors (as the mock computes them) with exactly one audit row; image generations and
// transcriptions (a multipart upload) go through the same SDK calls an application makes.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import { toFile } from 'openai';

import { startStack } from './lib/stack.mjs';

const databaseUrl = process.env.SLUICE_TEST_DATABASE_URL;

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

// The rows the audit trail holds for a request id, once the background writer wrote one (or 5 s).
async function auditRows(requestId) {
  let rows = [];
  for (let i = 0; i < 50; i += 1) {
    const out = execFileSync(
      'psql',
      [databaseUrl, '-Atc', `SELECT row_to_json(r) FROM ai_requests r WHERE id = '${requestId.replace(/'/g, '')}'`],
      { encoding: 'utf8' },
    );
    rows = out.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    if (rows.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));  // a second row would have shown by now
  const out = execFileSync('psql', [databaseUrl, '-Atc', `SELECT count(*) FROM ai_requests WHERE id = '${requestId}'`], {
    encoding: 'utf8',
  });
  assert.equal(Number(out.trim()), rows.length);
  return rows;
}

// What the mock answers itself, for comparing with what came through the gateway.
async function mockAnswer(pathname, body) {
  const reply = await fetch(`${stack.mockUrl}/openai/v1${pathname}`, {
    method: 'POST',
    headers: { authorization: 'Bearer mock-openai-key', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(reply.status, 200);
  return reply.json();
}

describe('the other /v1 endpoints through the openai SDK', () => {
  test('embeddings.create gets the provider vectors, with one audit row', async () => {
    const input = ['The gateway relays embeddings.', 'Vectors come from the provider.'];
    const { data, response } = await stack
      .openai()
      .embeddings.create({ model: 'text-embedding-3-small', input, encoding_format: 'float' })
      .withResponse();
    const expected = await mockAnswer('/embeddings', { model: 'text-embedding-3-small', input, encoding_format: 'float' });
    assert.equal(data.data.length, 2);
    assert.deepEqual(
      data.data.map((item) => item.embedding),
      expected.data.map((item) => item.embedding),
    );
    assert.deepEqual(data.usage, expected.usage);
    const requestId = response.headers.get('x-sluice-request-id');
    assert.ok(requestId, 'the gateway names the request');
    if (!databaseUrl) return;
    const rows = await auditRows(requestId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].outcome, 'ok');
    assert.equal(rows[0].model, 'text-embedding-3-small');
    assert.equal(rows[0].served_endpoint, 'openai/api');
    assert.equal(rows[0].route_match, 'endpoint:embeddings;route:text-embedding-3-small');
    assert.equal(rows[0].input_tokens, expected.usage.prompt_tokens);
  });

  test('the SDK default (base64 vectors) decodes to the same numbers', async () => {
    const input = 'decoded by the SDK';
    const created = await stack.openai().embeddings.create({ model: 'text-embedding-3-small', input });
    const expected = await mockAnswer('/embeddings', { model: 'text-embedding-3-small', input });
    assert.equal(created.data[0].embedding.length, expected.data[0].embedding.length);
    created.data[0].embedding.forEach((value, k) => {
      assert.ok(Math.abs(value - expected.data[0].embedding[k]) < 1e-6, `component ${k}`);
    });
  });

  test('images.generate gets the images, counted in the audit row', async () => {
    const { data, response } = await stack
      .openai()
      .images.generate({ model: 'gpt-image-1', prompt: 'a sluice gate at dawn', n: 2 })
      .withResponse();
    assert.equal(data.data.length, 2);
    assert.equal(Buffer.from(data.data[1].b64_json, 'base64').toString(), 'mock image 1 for: a sluice gate at dawn');
    if (!databaseUrl) return;
    const rows = await auditRows(response.headers.get('x-sluice-request-id'));
    assert.equal(rows.length, 1);
    assert.equal(rows[0].unit, 'images');
    assert.equal(rows[0].units, 2);
    assert.equal(rows[0].cost_microdollars, 80000);
  });

  test('audio.transcriptions.create uploads the file through the gateway', async () => {
    const audio = Buffer.alloc(48000);
    for (let i = 0; i < audio.length; i += 1) audio[i] = (i * 7) & 0xff;
    const { data, response } = await stack
      .openai()
      .audio.transcriptions.create({ file: await toFile(audio, 'meeting.wav'), model: 'whisper-1' })
      .withResponse();
    assert.match(data.text, /^Mock transcription of meeting\.wav: 48000 bytes, fnv [0-9a-f]{16}\.$/);
    if (!databaseUrl) return;
    const rows = await auditRows(response.headers.get('x-sluice-request-id'));
    assert.equal(rows.length, 1);
    assert.equal(rows[0].route_match, 'endpoint:audio/transcriptions;route:whisper-1');
    assert.equal(rows[0].unit, 'seconds');
    assert.equal(rows[0].units, 3);  // 48000 bytes at 16000 a second
  });

  test('a chat model on /v1/embeddings is a 400 the SDK reports', async () => {
    await assert.rejects(
      stack.openai().embeddings.create({ model: 'claude-sonnet-5-5', input: 'x' }),
      (err) => err.status === 400 && err.code === 'model_kind_mismatch',
    );
  });

  test('a /v1 path the gateway does not serve is 404 unknown_url', async () => {
    await assert.rejects(
      stack.openai().files.list(),
      (err) => err.status === 404 && err.code === 'unknown_url' && err.type === 'invalid_request_error',
    );
  });
});
