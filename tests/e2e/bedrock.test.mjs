// AWS Bedrock through Sluice, judged with AWS's own code: the official SDKs reach the shipped
// catalog's claude-sonnet-4-5-bedrock (InvokeModel on the mock) in every client format; the
// signature Sluice sent is recomputed with @smithy/signature-v4; the mock's frames are decoded
// with @smithy/eventstream-codec, and the mock accepts a request AWS's signer signed (and refuses
// one signed with a wrong secret), so neither side is graded by Sluice's own signer or codec.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { streamedToolRoundTrip } from './lib/sdk_helpers.mjs';
import { decodeFrames, signer } from './lib/aws.mjs';
import { mockText, startStack } from './lib/stack.mjs';

const MODEL = 'claude-sonnet-4-5-bedrock';
const MODEL_ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const KEYS = { accessKeyId: 'AKIDSLUICEMOCK', secretAccessKey: 'sluice-mock-secret-access-key', region: 'us-east-1' };
const INVOKE_BODY = JSON.stringify({
  anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }],
});

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

function amzDateToDate(text) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
}

// Sends InvokeModel(WithResponseStream) straight to the mock, signed by AWS's signer.
async function invokeSignedByAws(keys, stream) {
  const url = new URL(stack.mockUrl);
  const path = `/model/${encodeURIComponent(MODEL_ID)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`;
  const accept = stream ? 'application/vnd.amazon.eventstream' : 'application/json';
  const signed = await signer(keys).sign({
    method: 'POST', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path, query: {},
    headers: { host: url.host, 'content-type': 'application/json', accept },
    body: INVOKE_BODY,
  });
  const { host, ...headers } = signed.headers;
  return fetch(`${stack.mockUrl}${path}`, { method: 'POST', headers, body: INVOKE_BODY });
}

describe('AWS Bedrock through Sluice, checked with AWS’s signer and codec', () => {
  test('every client format reaches the Bedrock deployment, streamed and not', async () => {
    const anthropic = stack.anthropic();
    const whole = await anthropic.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(whole.content[0].text, mockText(MODEL_ID));
    let streamed = '';
    const stream = anthropic.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    stream.on('text', (text) => { streamed += text; });
    const final = await stream.finalMessage();
    assert.equal(streamed, mockText(MODEL_ID));
    assert.ok(final.usage.output_tokens > 0);

    const openai = stack.openai();
    let chat = '';
    const chunks = await openai.chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    for await (const chunk of chunks) chat += chunk.choices[0]?.delta?.content ?? '';
    assert.equal(chat, mockText(MODEL_ID));
    const response = await openai.responses.create({ model: MODEL, input: 'Hi' });
    assert.equal(response.output_text, mockText(MODEL_ID));
  });

  test('the signature Sluice sent is the one AWS’s signer computes for the same request', async () => {
    await stack.anthropic().messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    const last = await stack.mockJson('/_mock/last');
    assert.equal(last.path, `/model/${encodeURIComponent(MODEL_ID)}/invoke`);
    assert.equal(last.json.anthropic_version, 'bedrock-2023-05-31');
    assert.equal(last.json.model, undefined);
    const sent = last.headers.authorization;
    const signedHeaders = /SignedHeaders=([^,]+)/.exec(sent)[1].split(';');
    const headers = {};
    for (const name of signedHeaders) if (name !== 'x-amz-date') headers[name] = last.headers[name];
    const url = new URL(stack.mockUrl);
    const ours = await signer(KEYS).sign({
      method: 'POST', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: last.path, query: {},
      headers, body: last.body,
    }, { signingDate: amzDateToDate(last.headers['x-amz-date']) });
    assert.equal(/Signature=([0-9a-f]{64})/.exec(sent)[1], /Signature=([0-9a-f]{64})/.exec(ours.headers.authorization)[1]);
  });

  test('the mock accepts AWS’s signature, and its frames decode with AWS’s codec', async () => {
    const reply = await invokeSignedByAws(KEYS, true);
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'application/vnd.amazon.eventstream');
    const frames = decodeFrames(new Uint8Array(await reply.arrayBuffer()));
    const events = frames.map((frame) => {
      assert.equal(frame.headers[':event-type'].value, 'chunk');
      assert.equal(frame.headers[':message-type'].value, 'event');
      const { bytes } = JSON.parse(Buffer.from(frame.body).toString('utf8'));
      return JSON.parse(Buffer.from(bytes, 'base64').toString('utf8'));
    });
    assert.equal(events[0].type, 'message_start');
    assert.equal(events.at(-1).type, 'message_stop');
    const text = events.filter((e) => e.type === 'content_block_delta').map((e) => e.delta.text).join('');
    assert.equal(text, mockText(MODEL_ID));
  });

  test('the InvokeModel call Sluice sent is the one @anthropic-ai/bedrock-sdk sends for the same request', async () => {
    const params = {
      max_tokens: 64, temperature: 0.3, system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'Hi' }],
    };
    await stack.anthropic().messages.create({ ...params, model: MODEL });
    const ours = await stack.mockJson('/_mock/last');
    // The vendor's own SDK, signed by AWS's signer, straight to the mock (which checks the signature).
    // This SDK release moves its own anthropic-version header (a date) into the body, which Bedrock
    // refuses; Bedrock's documented value, given as the header, is what it then moves.
    const bedrock = new AnthropicBedrock({
      awsAccessKey: KEYS.accessKeyId, awsSecretKey: KEYS.secretAccessKey, awsRegion: KEYS.region, baseURL: stack.mockUrl,
      maxRetries: 0, defaultHeaders: { 'anthropic-version': 'bedrock-2023-05-31' },
    });
    const answer = await bedrock.messages.create({ ...params, model: MODEL_ID });
    assert.equal(answer.content[0].text, mockText(MODEL_ID));
    const theirs = await stack.mockJson('/_mock/last');
    // The SDK leaves the model id's ':' as it is, Sluice sends %3A: the same path to Bedrock.
    assert.equal(decodeURIComponent(ours.path), decodeURIComponent(theirs.path));
    assert.deepEqual(ours.json, theirs.json);
  });

  test('the AI SDK runs a streamed tool round trip on the Bedrock deployment', async () => {
    const { text, steps } = await streamedToolRoundTrip(stack, MODEL);
    assert.equal(steps.length, 2, 'a tool call, then the answer');
    assert.equal(steps[0].toolCalls[0].toolName, 'get_weather');
    assert.equal(text, mockText(MODEL_ID));
  });

  test('a wrong secret is refused as AWS refuses it', async () => {
    const reply = await invokeSignedByAws({ ...KEYS, secretAccessKey: 'not-the-secret' }, false);
    assert.equal(reply.status, 403);
    assert.match(reply.headers.get('x-amzn-errortype'), /^InvalidSignatureException/);
    assert.match((await reply.json()).message, /signature we calculated does not match/);
  });
});
