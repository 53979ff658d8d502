// Real recorded provider answers (tests/fixtures), replayed by the mock through the gateway into each
// client SDK. What the SDK accumulates (text, reasoning, tool names and arguments, how it finished,
// usage) must be what the recording says; the expected values are read from the fixture files
// themselves (lib/recording.mjs). When the client speaks the recording's own wire (the passthrough
// lane) the SDK result must also equal what the same SDK makes of the recording talking to the
// provider directly.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

import { fixtureWire, fromClient, summarizeFixture } from './lib/recording.mjs';
import { startStack } from './lib/stack.mjs';

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

// The model of the shipped catalog served on each provider wire.
const MODEL_ON = {
  anthropic: 'claude-sonnet-5-5',
  'openai-chat': 'deepseek-flash',
  'openai-responses': 'gpt-5-5',
  gemini: 'gemini-3-flash',
};

// The client endpoint that speaks each provider wire (for the passthrough comparison).
const CLIENT_OF = { anthropic: 'anthropic', 'openai-chat': 'chat', 'openai-responses': 'responses' };

// The tool each recording calls, declared in the request as a client would.
const TOOLS = {
  'anthropic/vercel-ai__anthropic-tool-no-args': { name: 'updateIssueList', schema: { type: 'object', properties: {} } },
  'anthropic/vercel-ai__anthropic-json-tool.1': {
    name: 'json',
    schema: { type: 'object', properties: { elements: { type: 'array', items: { type: 'object' } } } },
  },
  'openai-responses/vercel-ai__openai-reasoning-encrypted-content.1': {
    name: 'calculator',
    schema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' }, op: { type: 'string' } },
      required: ['a', 'b', 'op'],
    },
  },
  'gemini/vercel-ai__google-tool-call': {
    name: 'weather',
    schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};

function toolFor(fixture) {
  return TOOLS[fixture.replace(/\.(chunks\.txt|json)$/, '')];
}

const PROMPT = 'Replay the recording, please.';

// One request through the gateway from `client` ('anthropic' | 'chat' | 'responses'), streamed or
// not, scripted to replay `fixture`; resolves with the SDK's accumulated result. `baseURL`
// overrides the gateway (to ask the mock directly).
async function ask(client, fixture, { streamed, baseURL } = {}) {
  const model = MODEL_ON[fixtureWire(fixture)];
  const script = { fixture };
  const tool = toolFor(fixture);
  if (client === 'anthropic') {
    const sdk = baseURL
      ? new Anthropic({
          baseURL,
          apiKey: 'k',
          maxRetries: 0,
          // This SDK sends the key as a bearer token; the provider wants x-api-key.
          defaultHeaders: { 'x-api-key': 'k', 'x-mock-script': JSON.stringify(script) },
        })
      : stack.anthropic({ script });
    const request = {
      model,
      max_tokens: 4096,
      messages: [{ role: 'user', content: PROMPT }],
      ...(tool ? { tools: [{ name: tool.name, description: 'a tool', input_schema: tool.schema }] } : {}),
    };
    return streamed ? sdk.messages.stream(request).finalMessage() : sdk.messages.create(request);
  }
  const sdk = baseURL
    ? new OpenAI({ baseURL, apiKey: 'k', maxRetries: 0, defaultHeaders: { 'x-mock-script': JSON.stringify(script) } })
    : stack.openai({ script });
  if (client === 'chat') {
    const request = {
      model,
      messages: [{ role: 'user', content: PROMPT }],
      ...(tool
        ? { tools: [{ type: 'function', function: { name: tool.name, description: 'a tool', parameters: tool.schema } }] }
        : {}),
    };
    return streamed
      ? sdk.chat.completions.stream({ ...request, stream_options: { include_usage: true } }).finalChatCompletion()
      : sdk.chat.completions.create(request);
  }
  const request = {
    model,
    input: PROMPT,
    ...(tool
      ? { tools: [{ type: 'function', name: tool.name, description: 'a tool', parameters: tool.schema, strict: false }] }
      : {}),
  };
  return streamed ? sdk.responses.stream(request).finalResponse() : sdk.responses.create(request);
}

// What the client SDK made of it must match the recording. Reasoning text is compared where the
// client format can show it (not Chat); a signature must survive (exactly, on the passthrough lane).
function assertMatches(client, got, expected, { passthrough }) {
  assert.equal(got.text, expected.text, 'text');
  assert.deepEqual(got.toolCalls, expected.toolCalls, 'tool names and arguments');
  assert.equal(got.finish, expected.finish, 'how it finished');
  assert.ok(got.usage, 'usage is present');
  assert.equal(got.usage.prompt, expected.usage.prompt, 'prompt tokens (cached included)');
  assert.equal(got.usage.cacheRead, expected.usage.cacheRead, 'cache read tokens');
  assert.equal(got.usage.output, expected.usage.output, 'output tokens');
  if (client !== 'anthropic' && expected.usage.reasoning !== null) {
    assert.equal(got.usage.reasoning ?? 0, expected.usage.reasoning, 'reasoning tokens');
  }
  if (client !== 'chat' && expected.thinking) {
    assert.equal(got.thinking, expected.thinking, 'reasoning text');
    assert.ok(got.signature.length > 0, 'the reasoning is signed');
    if (passthrough) assert.equal(got.signature, expected.signature, 'signature');
  }
}

const STREAMS = [
  'anthropic/vercel-ai__anthropic-text.chunks.txt',
  'anthropic/vercel-ai__anthropic-tool-no-args.chunks.txt',
  'anthropic/vercel-ai__anthropic-json-tool.1.chunks.txt',
  'anthropic/vercel-ai__anthropic-clear-thinking.1.chunks.txt',
  'openai-chat/vercel-ai__openai-text.chunks.txt',
  'openai-responses/vercel-ai__openai-reasoning-encrypted-content.1.chunks.txt',
  'gemini/vercel-ai__google-text.chunks.txt',
  'gemini/vercel-ai__google-tool-call.chunks.txt',
];

const BODIES = [
  'anthropic/vercel-ai__anthropic-text.json',
  'anthropic/vercel-ai__anthropic-tool-no-args.json',
  'anthropic/vercel-ai__anthropic-json-tool.1.json',
  'openai-chat/vercel-ai__openai-text.json',
  'openai-responses/vercel-ai__openai-reasoning-encrypted-content.1.json',
  'gemini/vercel-ai__google-text.json',
  'gemini/vercel-ai__google-tool-call.json',
];

for (const [files, streamed] of [
  [STREAMS, true],
  [BODIES, false],
]) {
  for (const fixture of files) {
    describe(`${fixture} (${streamed ? 'streamed' : 'not streamed'})`, () => {
      const expected = summarizeFixture(fixture);
      const wire = fixtureWire(fixture);

      for (const client of ['anthropic', 'chat', 'responses']) {
        const passthrough = CLIENT_OF[wire] === client;
        test(`into the ${client} SDK${passthrough ? ' (passthrough)' : ''}`, async () => {
          const got = fromClient[client](await ask(client, fixture, { streamed }));
          if (passthrough) {
            // The same SDK talking to the recording directly: the gateway must change nothing.
            const prefix = client === 'anthropic' ? '' : '/v1';
            const direct = fromClient[client](await ask(client, fixture, { streamed, baseURL: stack.mockUrl + prefix }));
            assert.deepEqual(got, direct, 'the same as without the gateway');
            // A recording holding several answers in a row (a multi-turn capture) is read
            // differently by the SDK than its first answer; compare those only with the direct run.
            if (!isMultiAnswer(fixture)) assertMatches(client, got, expected, { passthrough });
          } else {
            assertMatches(client, got, expected, { passthrough });
          }
        });
      }
    });
  }
}

function isMultiAnswer(fixture) {
  return fixture === 'openai-responses/vercel-ai__openai-reasoning-encrypted-content.1.chunks.txt';
}

// A recorded error stream (an `error` event, then `response.failed`: insufficient quota) must reach
// every client as that SDK's error, carrying the provider's message, and never hang.
describe('openai-responses/vercel-ai__openai-error.1.chunks.txt (streamed error)', () => {
  const fixture = 'openai-responses/vercel-ai__openai-error.1.chunks.txt';
  const expected = summarizeFixture(fixture);
  assert.equal(expected.finish, 'error');

  for (const client of ['anthropic', 'chat', 'responses']) {
    test(`into the ${client} SDK`, { timeout: 15000 }, async () => {
      let result;
      let error;
      try {
        result = await ask(client, fixture, { streamed: true });
      } catch (err) {
        error = err;
      }
      if (client === 'responses' && !error) {
        // The Responses SDK may report it as a failed response rather than throw.
        assert.equal(result.status, 'failed');
        assert.equal(result.error?.code, expected.error.code);
        assert.equal(result.error?.message, expected.error.message);
        return;
      }
      assert.ok(error, `the ${client} SDK reports an error`);
      assert.ok(error instanceof (client === 'anthropic' ? Anthropic.APIError : OpenAI.APIError), String(error));
      assert.match(error.message, /exceeded your current quota/);
    });
  }
});

// Gemini sends no tool-call ids; the gateway mints them deterministically, so the same recorded
// answer gives the same id every time (streamed and not).
describe('Gemini tool-call ids are minted deterministically', () => {
  const idOf = {
    anthropic: (message) => message.content.find((b) => b.type === 'tool_use')?.id,
    chat: (completion) => completion.choices[0].message.tool_calls?.[0]?.id,
    responses: (response) => response.output.find((i) => i.type === 'function_call')?.call_id,
  };
  for (const fixture of ['gemini/vercel-ai__google-tool-call.chunks.txt', 'gemini/vercel-ai__google-tool-call.json']) {
    for (const client of ['anthropic', 'chat', 'responses']) {
      test(`${fixture} twice into the ${client} SDK`, async () => {
        const streamed = fixture.endsWith('.chunks.txt');
        const first = idOf[client](await ask(client, fixture, { streamed }));
        const second = idOf[client](await ask(client, fixture, { streamed }));
        assert.equal(typeof first, 'string');
        assert.ok(first.length > 0);
        assert.equal(second, first);
      });
    }
  }
});
