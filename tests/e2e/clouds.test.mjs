// Google Vertex AI and Azure OpenAI through Sluice, judged with the vendors' own code: the JWT
// grant Sluice posts is compared with the one google-auth-library builds for the same key (and its
// signature checked with node:crypto); the Vertex and Azure requests Sluice sends are compared with
// those @anthropic-ai/vertex-sdk and openai's AzureOpenAI send for the same call, and the mock
// answers those SDKs' own requests; the official SDKs reach the shipped catalog's Vertex and Azure
// deployments in every client format, streamed and not, with tools (the AI SDK too); a chain
// azure → vertex → bedrock fails over across clouds. The mock's token endpoints verify the grants (tests/integration/clouds_test.cc
// has the token flows in detail).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import AnthropicVertex from '@anthropic-ai/vertex-sdk';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { JWT } from 'google-auth-library';
import { AzureOpenAI } from 'openai';

import { capturingTransporter } from './lib/sdk_helpers.mjs';
import { mockText, startStack } from './lib/stack.mjs';

const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
const EMAIL = 'sluice-e2e@acme-ml.iam.gserviceaccount.com';
const AZURE_KEY = 'azure-e2e-key';
const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const keyFile = (tokenUri) => JSON.stringify({
  type: 'service_account', project_id: 'acme-ml', private_key_id: 'e2e-key-1', private_key: privateKey,
  client_email: EMAIL, token_uri: tokenUri,
});

// The shipped catalog plus, for these tests, Azure's classic API and a cross-cloud chain.
function editCatalog(dir) {
  const providers = path.join(dir, 'ai/providers.yaml');
  const text = fs.readFileSync(providers, 'utf8');
  const anchor = '      responses: { wire: openai-responses }  # /openai/v1/responses\n';
  assert.ok(text.includes(anchor), 'the shipped azure-openai provider changed');
  // Bedrock, the chain's last link, must answer: it does not take the caller's x-mock-script (which
  // fails Azure and Vertex).
  const bedrockScripted = '    region: us-east-1\n    user_agent: sluice/1\n    forward_headers: [x-mock-script]\n';
  assert.ok(text.includes(bedrockScripted), 'the shipped bedrock provider changed');
  fs.writeFileSync(providers, text
    .replace(anchor, `${anchor}      classic: { wire: openai-chat, api_version: "2024-10-21" }\n`)
    .replace(bedrockScripted, '    region: us-east-1\n    user_agent: sluice/1\n'));
  fs.appendFileSync(path.join(dir, 'ai/deployments.yaml'), [
    '  gpt-azure-classic: [{ endpoint: azure-openai/classic, upstream_model: gpt-4o-classic }]',
    '  cross-cloud:',
    '    - { endpoint: azure-openai/chat, upstream_model: gpt-4o }',
    '    - { endpoint: vertex/claude, upstream_model: "claude-sonnet-4-5@20250929" }',
    '    - { endpoint: bedrock/claude, upstream_model: "us.anthropic.claude-sonnet-4-5-20250929-v1:0" }',
    '',
  ].join('\n'));
  fs.appendFileSync(path.join(dir, 'ai/models.yaml'), [
    '  gpt-azure-classic: { pricing: { input_per_million: 1.0, output_per_million: 2.0 } }',
    '  cross-cloud: { pricing: { input_per_million: 1.0, output_per_million: 2.0 } }',
    '',
  ].join('\n'));
}

let stack;
let dir;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-e2e-clouds-'));
  fs.writeFileSync(path.join(dir, 'sa.json'), keyFile('http://unset/token'));
  stack = await startStack({
    editCatalog,
    mockArgs: ['--gcp-service-account', path.join(dir, 'sa.json'), '--token-lifetime', '600'],
    gatewayEnv: (mockUrl) => {
      // The shipped catalog's chain: default reads the key file GOOGLE_APPLICATION_CREDENTIALS names.
      fs.writeFileSync(path.join(dir, 'adc.json'), keyFile(`${mockUrl}/token`));
      return {
        GOOGLE_APPLICATION_CREDENTIALS: path.join(dir, 'adc.json'),
        VERTEX_BASE_URL: mockUrl,
        AZURE_OPENAI_BASE_URL: mockUrl,
        AZURE_OPENAI_API_KEY: AZURE_KEY,
      };
    },
  });
});
after(async () => {
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const hi = [{ role: 'user', content: 'Hi' }];
const jwtParts = (jwt) => jwt.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));

// What an SDK would send, captured instead of sent.
function capturingFetch(sink) {
  return async (url, init) => {
    sink.push({ url: new URL(String(url)), headers: new Headers(init.headers), body: JSON.parse(init.body) });
    throw new Error('captured');
  };
}

async function lastRequestTo(fragment) {
  const all = await stack.mockRequests();
  return all.filter((request) => request.path.includes(fragment)).at(-1);
}

describe('Google Vertex AI through Sluice, checked with Google’s and Anthropic’s code', () => {
  test('the JWT grant Sluice posts is the one google-auth-library builds for the same key', async () => {
    const reply = await stack.anthropic().messages.create({ model: 'claude-sonnet-4-5-vertex', max_tokens: 64, messages: hi });
    assert.equal(reply.content[0].text, mockText('claude-sonnet-4-5@20250929'));
    const grant = await lastRequestTo('/token');
    const ours = new URLSearchParams(grant.body);

    const sent = [];
    await new JWT({ email: EMAIL, key: privateKey, scopes: [CLOUD_PLATFORM], transporter: capturingTransporter(sent) })
      .getAccessToken();
    const [captured] = sent;
    const theirs = new URLSearchParams(String(captured.data));

    assert.equal(grant.method, captured.method);
    assert.deepEqual([...ours.keys()], [...theirs.keys()]);
    assert.equal(ours.get('grant_type'), theirs.get('grant_type'));
    const [ourHeader, ourClaims] = jwtParts(ours.get('assertion'));
    const [theirHeader, theirClaims] = jwtParts(theirs.get('assertion'));
    assert.equal(ourHeader.alg, theirHeader.alg);
    assert.equal(ourHeader.kid, 'e2e-key-1');
    assert.deepEqual(Object.keys(ourClaims).sort(), Object.keys(theirClaims).sort());
    assert.equal(ourClaims.iss, theirClaims.iss);
    assert.equal(ourClaims.scope, theirClaims.scope);
    assert.equal(ourClaims.exp - ourClaims.iat, theirClaims.exp - theirClaims.iat);
    // google-auth-library always names Google's endpoint; Sluice names the key file's token_uri.
    assert.equal(theirClaims.aud, 'https://oauth2.googleapis.com/token');
    assert.equal(ourClaims.aud, `${stack.mockUrl}/token`);
    const [head, claims, signature] = ours.get('assertion').split('.');
    assert.ok(crypto.verify('RSA-SHA256', Buffer.from(`${head}.${claims}`), publicKey, Buffer.from(signature, 'base64url')));
  });

  test('Sluice’s rawPredict calls are @anthropic-ai/vertex-sdk’s, and the mock answers the SDK’s own', async () => {
    const last = await lastRequestTo('/publishers/anthropic/');
    const token = last.headers.authorization.replace(/^Bearer /, '');
    const sent = [];
    const authClient = { projectId: 'acme-ml', getRequestHeaders: async () => new Headers({ authorization: `Bearer ${token}` }) };
    const capture = new AnthropicVertex({ region: 'us-east5', projectId: 'acme-ml', baseURL: `${stack.mockUrl}/v1`, authClient, fetch: capturingFetch(sent), maxRetries: 0 });
    for (const stream of [false, true]) {
      await assert.rejects(capture.messages.create({ model: 'claude-sonnet-4-5@20250929', max_tokens: 64, messages: hi, stream }));
      await stack.anthropic().messages.create({ model: 'claude-sonnet-4-5-vertex', max_tokens: 64, messages: hi, stream })
        .then(async (answer) => { if (stream) for await (const _ of answer); });
      const ours = await lastRequestTo('/publishers/anthropic/');
      const theirs = sent.at(-1);
      assert.equal(ours.path, theirs.url.pathname);
      // vertex-sdk 1.1.3 copies the base SDK's anthropic-version header into the body; Vertex
      // documents vertex-2023-10-16, which Sluice sends (and the mock requires).
      assert.equal(ours.json.anthropic_version, 'vertex-2023-10-16');
      assert.equal(typeof theirs.body.anthropic_version, 'string');
      assert.deepEqual(Object.keys(ours.json).sort(), Object.keys(theirs.body).sort());
      assert.equal(ours.json.model, undefined);
      assert.equal(theirs.body.model, undefined);
      assert.deepEqual(ours.json.messages, theirs.body.messages);
      assert.equal(Boolean(ours.json.stream), Boolean(theirs.body.stream));
      assert.equal(ours.headers['anthropic-version'], undefined);
      assert.equal(theirs.headers.get('anthropic-version'), null);
    }
    // Token counting: the SDK's count-tokens:rawPredict and Sluice's carry the same path and body.
    await assert.rejects(capture.messages.countTokens({ model: 'claude-sonnet-4-5@20250929', messages: hi }));
    const counted = await stack.anthropic().messages.countTokens({ model: 'claude-sonnet-4-5-vertex', messages: hi });
    assert.ok(counted.input_tokens > 0);
    const ourCount = await lastRequestTo('/count-tokens:rawPredict');
    const theirCount = sent.at(-1);
    assert.equal(ourCount.path, theirCount.url.pathname);
    assert.equal(ourCount.json.model, theirCount.body.model);
    assert.deepEqual(ourCount.json.messages, theirCount.body.messages);
    assert.deepEqual(Object.keys(ourCount.json).sort(), Object.keys(theirCount.body).sort());

    // The SDK's own request, sent to the mock with the token Google's endpoint gave Sluice.
    const vertex = new AnthropicVertex({
      region: 'us-east5', projectId: 'acme-ml', baseURL: `${stack.mockUrl}/v1`, authClient, maxRetries: 0,
      defaultHeaders: { 'anthropic-version': 'vertex-2023-10-16' },
    });
    const direct = await vertex.messages.create({ model: 'claude-sonnet-4-5@20250929', max_tokens: 64, messages: hi });
    assert.equal(direct.content[0].text, mockText('claude-sonnet-4-5@20250929'));
  });

  test('every client format reaches Vertex’s Claude and Gemini, streamed and not', async () => {
    const claude = mockText('claude-sonnet-4-5@20250929');
    let streamed = '';
    const stream = stack.anthropic().messages.stream({ model: 'claude-sonnet-4-5-vertex', max_tokens: 64, messages: hi });
    stream.on('text', (text) => { streamed += text; });
    await stream.finalMessage();
    assert.equal(streamed, claude);
    const openai = stack.openai();
    const chat = await openai.chat.completions.create({ model: 'claude-sonnet-4-5-vertex', messages: hi });
    assert.equal(chat.choices[0].message.content, claude);
    const response = await openai.responses.create({ model: 'claude-sonnet-4-5-vertex', input: 'Hi' });
    assert.equal(response.output_text, claude);
    let gemini = '';
    for await (const chunk of await openai.chat.completions.create({ model: 'gemini-2-5-flash-vertex', stream: true, messages: hi })) {
      gemini += chunk.choices[0]?.delta?.content ?? '';
    }
    assert.equal(gemini, mockText('gemini-2.5-flash'));
    const last = await stack.mockJson('/_mock/last');
    assert.equal(last.path, '/v1/projects/acme-ml/locations/us-east5/publishers/google/models/gemini-2.5-flash:streamGenerateContent');
    assert.equal(last.query, 'alt=sse');
  });
});

describe('Azure OpenAI through Sluice, checked with openai’s AzureOpenAI client', () => {
  test('Sluice’s classic-API call is AzureOpenAI’s, and the mock answers AzureOpenAI’s own', async () => {
    const sent = [];
    const capture = new AzureOpenAI({ endpoint: stack.mockUrl, apiKey: AZURE_KEY, apiVersion: '2024-10-21', fetch: capturingFetch(sent), maxRetries: 0 });
    await assert.rejects(capture.chat.completions.create({ model: 'gpt-4o-classic', messages: hi }));
    await stack.anthropic().messages.create({ model: 'gpt-azure-classic', max_tokens: 64, messages: hi });
    const ours = await stack.mockJson('/_mock/last');
    const theirs = sent[0];
    assert.equal(ours.path, theirs.url.pathname);
    assert.equal(`?${ours.query}`, theirs.url.search);
    assert.equal(ours.headers['api-key'], theirs.headers.get('api-key'));
    assert.equal(ours.headers.authorization, undefined);
    assert.equal(ours.json.model, theirs.body.model);
    assert.deepEqual(ours.json.messages.map((m) => m.role), theirs.body.messages.map((m) => m.role));

    const azure = new AzureOpenAI({ endpoint: stack.mockUrl, apiKey: AZURE_KEY, apiVersion: '2024-10-21', maxRetries: 0 });
    const direct = await azure.chat.completions.create({ model: 'gpt-4o-classic', messages: hi });
    assert.equal(direct.choices[0].message.content, mockText('gpt-4o-classic'));
    const noVersion = await fetch(`${stack.mockUrl}/openai/deployments/gpt-4o-classic/chat/completions`, {
      method: 'POST', headers: { 'api-key': AZURE_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ messages: hi }),
    });
    assert.equal(noVersion.status, 404);
  });

  test('every client format reaches the Azure deployment, streamed and not', async () => {
    const text = mockText('gpt-5.5');
    const openai = stack.openai();
    const response = await openai.responses.create({ model: 'gpt-5-5-azure', input: 'Hi' });
    assert.equal(response.output_text, text);
    const last = await stack.mockJson('/_mock/last');
    assert.equal(last.path, '/openai/v1/responses');
    assert.equal(last.headers['api-key'], AZURE_KEY);
    let streamed = '';
    for await (const event of await openai.responses.create({ model: 'gpt-5-5-azure', input: 'Hi', stream: true })) {
      if (event.type === 'response.output_text.delta') streamed += event.delta;
    }
    assert.equal(streamed, text);
    const chat = await openai.chat.completions.create({ model: 'gpt-5-5-azure', messages: hi });
    assert.equal(chat.choices[0].message.content, text);
    const anthropic = stack.anthropic();
    const whole = await anthropic.messages.create({ model: 'gpt-5-5-azure', max_tokens: 64, messages: hi });
    assert.equal(whole.content[0].text, text);
    let claudeStreamed = '';
    const stream = anthropic.messages.stream({ model: 'gpt-5-5-azure', max_tokens: 64, messages: hi });
    stream.on('text', (piece) => { claudeStreamed += piece; });
    await stream.finalMessage();
    assert.equal(claudeStreamed, text);
  });

  test('Azure’s content filter reaches each client as its own refusal', async () => {
    const filtered = await stack.anthropic({ script: { finish: 'content_filter' } })
      .messages.create({ model: 'gpt-azure-classic', max_tokens: 64, messages: hi });
    assert.equal(filtered.stop_reason, 'refusal');
    const prompt = stack.openai({ script: { status: 400, error_code: 'content_filter' } })
      .chat.completions.create({ model: 'gpt-azure-classic', messages: hi });
    await assert.rejects(prompt, (error) => error.status === 400 && error.code === 'content_filter');
  });
});

describe('tools through the clouds', () => {
  const schema = { type: 'object', properties: { city: { type: 'string', description: 'The city' } }, required: ['city'] };
  const ask = [{ role: 'user', content: 'What is the weather in Paris? Use the tool.' }];

  test('Vertex’s Claude calls a tool for a Chat client, streamed; Azure for an Anthropic client', async () => {
    const stream = await stack.openai().chat.completions.create({
      model: 'claude-sonnet-4-5-vertex', stream: true, messages: ask,
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'The weather', parameters: schema } }],
    });
    let name = '';
    let args = '';
    let finish;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta?.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(name, 'get_weather');
    assert.deepEqual(JSON.parse(args), { city: 'mock-city' });
    assert.equal(finish, 'tool_calls');
    const sent = await lastRequestTo('/publishers/anthropic/');
    assert.ok(sent.path.endsWith(':streamRawPredict'));
    assert.equal(sent.json.tools[0].name, 'get_weather');

    const message = await stack.anthropic().messages.create({
      model: 'gpt-5-5-azure', max_tokens: 64, messages: ask,
      tools: [{ name: 'get_weather', description: 'The weather', input_schema: schema }],
    });
    const use = message.content.find((block) => block.type === 'tool_use');
    assert.equal(use.name, 'get_weather');
    assert.deepEqual(use.input, { city: 'mock-city' });
    assert.equal(message.stop_reason, 'tool_use');
    assert.equal((await stack.mockJson('/_mock/last')).json.tools[0].name, 'get_weather');
  });
});

describe('the AI SDK through the clouds: a tool round trip', () => {
  const weather = () => tool({
    description: 'The current weather in a city.',
    inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
    execute: async () => '18 degrees and sunny',
  });
  for (const [model, upstream] of [['claude-sonnet-4-5-vertex', 'claude-sonnet-4-5@20250929'], ['gpt-5-5-azure', 'gpt-5.5']]) {
    test(`${model}: streamed on Chat, and on Responses`, async () => {
      const compatible = createOpenAICompatible({ name: 'sluice', baseURL: `${stack.gatewayUrl}/v1`, apiKey: stack.apiKey });
      const streamed = streamText({
        model: compatible.chatModel(model), tools: { get_weather: weather() },
        prompt: 'What is the weather in Paris? Use the tool.', stopWhen: stepCountIs(3), maxRetries: 0,
      });
      let text = '';
      const calls = [];
      for await (const part of streamed.fullStream) {
        if (part.type === 'text-delta') text += part.text;
        if (part.type === 'tool-call') calls.push(part.toolName);
        if (part.type === 'error') throw part.error;
      }
      assert.deepEqual(calls, ['get_weather']);
      assert.ok(text.includes(mockText(upstream)), text);
      const openai = createOpenAI({ baseURL: `${stack.gatewayUrl}/v1`, apiKey: stack.apiKey });
      const whole = await generateText({
        model: openai.responses(model), tools: { get_weather: weather() }, providerOptions: { openai: { store: false } },
        prompt: 'What is the weather in Paris? Use the tool.', stopWhen: stepCountIs(3), maxRetries: 0,
      });
      assert.equal(whole.steps[0].toolCalls[0].toolName, 'get_weather');
      assert.ok(whole.text.includes(mockText(upstream)), whole.text);
    });
  }
});

describe('failover across clouds', () => {
  test('a chain azure → vertex → bedrock is answered by Bedrock when the first two fail', async () => {
    await stack.mockJson('/_mock/reset', 'POST');
    const reply = await stack.anthropic({ script: { status: 503 } })
      .messages.create({ model: 'cross-cloud', max_tokens: 64, messages: hi });
    assert.equal(reply.content[0].text, mockText('us.anthropic.claude-sonnet-4-5-20250929-v1:0'));
    const tried = (await stack.mockRequests()).map((request) => request.path).filter((p) => p !== '/token');
    assert.equal(tried[0], '/openai/v1/chat/completions');
    assert.ok(tried.some((p) => p.endsWith('/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict')), tried.join(' '));
    assert.equal(tried.at(-1), `/model/${encodeURIComponent('us.anthropic.claude-sonnet-4-5-20250929-v1:0')}/invoke`);
  });
});
