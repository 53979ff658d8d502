// Bedrock's Converse API through Sluice (wire: bedrock-converse), judged with AWS's own code:
// - AWS's SDK (@aws-sdk/client-bedrock-runtime) talks to the mock's Converse and ConverseStream
//   directly, so the mock's answers and event streams are read by AWS's deserializer, and its
//   signature check accepts AWS's signer;
// - the Converse body Sluice sent is re-serialized by the SDK's ConverseCommand from the same input
//   and must come out the same (a member the SDK does not know would be dropped), at the same path;
// - the official OpenAI and Anthropic SDKs reach the shipped llama-4-maverick-bedrock (Converse on
//   the mock) in every client format, streamed and not, with a tool round trip.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';

import { streamedToolRoundTrip } from './lib/sdk_helpers.mjs';
import { mockText, startStack } from './lib/stack.mjs';

const MODEL = 'llama-4-maverick-bedrock';
const MODEL_ID = 'us.meta.llama4-maverick-17b-instruct-v1:0';
const KEYS = { accessKeyId: 'AKIDSLUICEMOCK', secretAccessKey: 'sluice-mock-secret-access-key' };
const TOOL = {
  name: 'get_weather',
  description: 'The current weather in a city.',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

// HTTP/1.1 (the mock's): the SDK would take HTTP/2 for event streams otherwise.
function awsClient(requestHandler = new NodeHttpHandler()) {
  return new BedrockRuntimeClient({ region: 'us-east-1', endpoint: stack.mockUrl, credentials: KEYS, maxAttempts: 1, requestHandler });
}

// What the SDK would send for `input`, captured before it leaves (no network).
async function sdkRequest(command) {
  let captured;
  const handler = {
    handle: async (request) => {
      captured = request;
      throw new Error('captured');
    },
  };
  await assert.rejects(awsClient(handler).send(command), /captured/);
  return captured;
}

describe('Bedrock Converse, checked with AWS’s SDK', () => {
  test('AWS’s SDK reads the mock’s Converse answer and stream, tool call included', async () => {
    const client = awsClient();
    const input = {
      modelId: MODEL_ID,
      messages: [{ role: 'user', content: [{ text: 'What is the weather in Paris? Use the tool.' }] }],
      toolConfig: { tools: [{ toolSpec: { name: TOOL.name, description: TOOL.description, inputSchema: { json: TOOL.schema } } }] },
    };
    const whole = await client.send(new ConverseCommand(input));
    assert.equal(whole.stopReason, 'tool_use');
    const use = whole.output.message.content.find((b) => b.toolUse)?.toolUse;
    assert.equal(use.name, TOOL.name);
    assert.deepEqual(use.input, { city: 'mock-city' });
    assert.ok(whole.usage.inputTokens > 0 && whole.usage.outputTokens > 0);

    const streamed = await client.send(new ConverseStreamCommand({ modelId: MODEL_ID, messages: input.messages }));
    let text = '';
    let stop;
    let usage;
    for await (const event of streamed.stream) {
      if (event.contentBlockDelta?.delta?.text) text += event.contentBlockDelta.delta.text;
      if (event.messageStop) stop = event.messageStop.stopReason;
      if (event.metadata) usage = event.metadata.usage;
    }
    assert.equal(text, mockText(MODEL_ID));
    assert.equal(stop, 'end_turn');
    assert.ok(usage.outputTokens > 0);
  });

  test('the body Sluice sent is what AWS’s SDK serializes for the same input, at the same path', async () => {
    await stack.openai().chat.completions.create({
      model: MODEL, max_tokens: 200, temperature: 0.5, stop: ['END'],
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Weather in Paris?' }],
      tools: [{ type: 'function', function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.schema } }],
      tool_choice: 'required',
    });
    const last = await stack.mockJson('/_mock/last');
    assert.equal(last.path, `/model/${encodeURIComponent(MODEL_ID)}/converse`);
    assert.match(last.headers.authorization, /^AWS4-HMAC-SHA256 Credential=AKIDSLUICEMOCK\//);
    const sent = last.json;
    assert.equal(sent.modelId, undefined);
    const request = await sdkRequest(new ConverseCommand({ modelId: MODEL_ID, ...sent }));
    assert.equal(request.path, last.path);
    assert.deepEqual(JSON.parse(request.body), sent);
    assert.deepEqual(sent.toolConfig.toolChoice, { any: {} });
    assert.deepEqual(sent.inferenceConfig, { maxTokens: 200, temperature: 0.5, stopSequences: ['END'] });
    assert.deepEqual(sent.system, [{ text: 'Be brief.' }]);
  });

  test('every client format reaches the Converse deployment, streamed and not', async () => {
    const anthropic = stack.anthropic();
    const whole = await anthropic.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(whole.content[0].text, mockText(MODEL_ID));
    assert.ok(whole.usage.input_tokens > 0);
    let streamed = '';
    const stream = anthropic.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
    stream.on('text', (text) => { streamed += text; });
    const final = await stream.finalMessage();
    assert.equal(streamed, mockText(MODEL_ID));
    assert.equal(final.stop_reason, 'end_turn');
    assert.ok(final.usage.output_tokens > 0);
    assert.equal((await stack.mockJson('/_mock/last')).path, `/model/${encodeURIComponent(MODEL_ID)}/converse-stream`);

    const openai = stack.openai();
    const chat = await openai.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(chat.choices[0].message.content, mockText(MODEL_ID));
    let chunks = '';
    const chatStream = await openai.chat.completions.create({
      model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Hi' }],
    });
    let usage;
    for await (const chunk of chatStream) {
      chunks += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(chunks, mockText(MODEL_ID));
    assert.ok(usage.completion_tokens > 0);
    const response = await openai.responses.create({ model: MODEL, input: 'Hi' });
    assert.equal(response.output_text, mockText(MODEL_ID));
    let deltas = '';
    const responseStream = await openai.responses.create({ model: MODEL, input: 'Hi', stream: true });
    for await (const event of responseStream) if (event.type === 'response.output_text.delta') deltas += event.delta;
    assert.equal(deltas, mockText(MODEL_ID));
  });

  test('a tool round trip from the OpenAI SDK keeps Bedrock’s tool id across turns', async () => {
    const openai = stack.openai();
    const tools = [{ type: 'function', function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.schema } }];
    const messages = [{ role: 'user', content: 'What is the weather in Paris? Use the tool.' }];
    const first = await openai.chat.completions.create({ model: MODEL, messages, tools });
    assert.equal(first.choices[0].finish_reason, 'tool_calls');
    const [call] = first.choices[0].message.tool_calls;
    assert.equal(call.function.name, TOOL.name);
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'mock-city' });
    const second = await openai.chat.completions.create({
      model: MODEL, tools,
      messages: [...messages, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '18 degrees' }],
    });
    assert.equal(second.choices[0].message.content, mockText(MODEL_ID));
    const last = await stack.mockJson('/_mock/last');
    const uses = last.json.messages.flatMap((m) => m.content.filter((b) => b.toolUse).map((b) => b.toolUse.toolUseId));
    const results = last.json.messages.flatMap((m) => m.content.filter((b) => b.toolResult).map((b) => b.toolResult.toolUseId));
    assert.deepEqual(uses, [call.id]);
    assert.deepEqual(results, [call.id]);
  });

  test('the AI SDK runs a streamed tool round trip on the Converse deployment', async () => {
    const { text, steps } = await streamedToolRoundTrip(stack, MODEL);
    assert.equal(steps.length, 2, 'a tool call, then the answer');
    assert.deepEqual(steps[0].toolCalls[0].input, { city: 'mock-city' });
    assert.equal(text, mockText(MODEL_ID));
  });

  test('a throttled Converse call is the client’s 429 in its own format, and a bad frame mid-stream ends it with an error', async () => {
    const script = { status: 429 };
    await assert.rejects(
      stack.anthropic({ script }).messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }),
      (err) => err.status === 429 && err.error?.error?.type === 'rate_limit_error',
    );
    const broken = await stack.openai({ script: { bad_frame_after: 3 } }).chat.completions.create({
      model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hi' }],
    });
    await assert.rejects(async () => {
      for await (const _ of broken) { /* drain */ }
    });
  });
});
