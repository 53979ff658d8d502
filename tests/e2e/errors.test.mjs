// Provider errors reach each client SDK as that SDK's own error (WIRE_FORMATS section 5):
// - a 429 with retry-after → RateLimitError, status 429, the retry-after copied;
// - overload (Anthropic 529, OpenAI/Gemini 503) → 529 overloaded_error for Anthropic clients,
//   503 for OpenAI clients;
// - recorded 429 bodies → RateLimitError with the provider's message;
// - an error inside a 200 stream → an SDK error (or, for Responses, a failed response), never a hang.
//
// A failing answer counts against the deployment's breaker, so every test that makes the provider
// fail before the stream gets a stack of its own; they run a few at a time.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

import { DEFECTS } from './lib/known-defects.mjs';
import { fixtureWire } from './lib/recording.mjs';
import { MODELS, startStack } from './lib/stack.mjs';

const PROMPT = 'Hello, is anyone there?';
const CLIENTS = ['anthropic', 'chat', 'responses'];

async function withStack(fn) {
  const stack = await startStack();
  try {
    return await fn(stack);
  } finally {
    await stack.stop();
  }
}

// Sends one request from `client` and returns what the SDK threw (or, for a Responses stream that
// ended with a failed response, that response).
async function outcome(stack, client, model, { script, streamed }) {
  try {
    if (client === 'anthropic') {
      const sdk = stack.anthropic({ script });
      const request = { model, max_tokens: 256, messages: [{ role: 'user', content: PROMPT }] };
      const message = streamed ? await sdk.messages.stream(request).finalMessage() : await sdk.messages.create(request);
      return { result: message };
    }
    const sdk = stack.openai({ script });
    if (client === 'chat') {
      const request = { model, messages: [{ role: 'user', content: PROMPT }] };
      if (!streamed) return { result: await sdk.chat.completions.create(request) };
      return {
        result: await sdk.chat.completions
          .stream({ ...request, stream_options: { include_usage: true } })
          .finalChatCompletion(),
      };
    }
    const request = { model, input: PROMPT };
    return { result: streamed ? await sdk.responses.stream(request).finalResponse() : await sdk.responses.create(request) };
  } catch (error) {
    return { error };
  }
}

const sdkOf = (client) => (client === 'anthropic' ? Anthropic : OpenAI);

function describeError(error) {
  return `${error?.constructor?.name} ${error?.status}: ${error?.message}`;
}

describe('429 with retry-after → RateLimitError', { concurrency: 4 }, () => {
  for (const { model, wire } of MODELS) {
    for (const client of CLIENTS) {
      for (const streamed of [false, true]) {
        test(`${model} (${wire}) → ${client} SDK, ${streamed ? 'streamed' : 'not streamed'}`, (t) =>
          withStack(async (stack) => {
            const { error } = await outcome(stack, client, model, {
              script: { status: 429, retry_after: 3 },
              streamed,
            });
            assert.ok(error, 'the SDK raised');
            const SDK = sdkOf(client);
            assert.ok(error instanceof SDK.RateLimitError, describeError(error));
            assert.equal(error.status, 429);
            assert.equal(error.headers?.get('retry-after'), '3', 'retry-after is copied');
            if (client === 'anthropic') {
              assert.equal(error.error?.type, 'error');
              assert.equal(error.error?.error?.type, 'rate_limit_error');
            } else {
              await t.test('error.code is rate_limit_exceeded', () => {
                assert.equal(error.code, 'rate_limit_exceeded');
              });
            }
          }));
      }
    }
  }
});

describe('overloaded → 529 for Anthropic clients, 503 for OpenAI clients', { concurrency: 4 }, () => {
  for (const { model, wire } of MODELS) {
    // Each provider's own overload answer.
    const status = wire === 'anthropic' ? 529 : 503;
    for (const client of CLIENTS) {
      test(`${model} (${wire}) answers ${status} → ${client} SDK`, () =>
        withStack(async (stack) => {
          const { error } = await outcome(stack, client, model, {
            script: { status, retry_after: 2 },
            streamed: false,
          });
          assert.ok(error, 'the SDK raised');
          const SDK = sdkOf(client);
          assert.ok(error instanceof SDK.InternalServerError, describeError(error));
          if (client === 'anthropic') {
            assert.equal(error.status, 529);
            assert.equal(error.error?.error?.type, 'overloaded_error');
          } else {
            assert.equal(error.status, 503);
          }
          assert.equal(error.headers?.get('retry-after'), '2', 'retry-after is copied');
        }));
    }
  }
});

describe('recorded 429 bodies → RateLimitError', { concurrency: 4 }, () => {
  const cases = [
    ['openai-responses/vercel-ai__openai-error.1.json', /exceeded your current quota/],
    ['gemini/vercel-ai__google-429-retry-info.json', /exceeded your current quota/],
  ];
  const modelOn = { 'openai-responses': 'gpt-5-5', gemini: 'gemini-3-flash' };
  for (const [fixture, message] of cases) {
    for (const client of CLIENTS) {
      test(`${fixture} → ${client} SDK`, () =>
        withStack(async (stack) => {
          const { error } = await outcome(stack, client, modelOn[fixtureWire(fixture)], {
            script: { fixture, status: 429 },
            streamed: false,
          });
          assert.ok(error, 'the SDK raised');
          assert.ok(error instanceof sdkOf(client).RateLimitError, describeError(error));
          assert.equal(error.status, 429);
          assert.match(error.message, message);
          if (fixture.startsWith('gemini/')) {
            // The body's RetryInfo (34.4s) becomes a retry-after header the SDKs read.
            const value = error.headers?.get('retry-after');
            assert.ok(Number(value) >= 34 && Number(value) <= 35, `retry-after ${value}`);
          }
        }));
    }
  }
});

describe('an error inside a 200 stream surfaces as an SDK error', () => {
  let stack;
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack?.stop();
  });

  for (const { model, wire } of MODELS) {
    for (const client of CLIENTS) {
      test(`${model} (${wire}) → ${client} SDK`, { timeout: 15000 }, async () => {
        const { error, result } = await outcome(stack, client, model, {
          script: { in_stream_error: 2 },
          streamed: true,
        });
        if (client === 'responses' && !error) {
          // The Responses SDK reports a `response.failed` terminal event as a failed response.
          assert.equal(result.status, 'failed', `status ${result.status}`);
          assert.ok(result.error?.message, 'the failed response says why');
          return;
        }
        if (client === 'responses' && error?.type === 'error' && !(error instanceof Error)) {
          // This SDK rejects with the stream's own `error` event when it has no nested `error`
          // object, which is how OpenAI itself sends it (the passthrough lane relays it as is).
          assert.ok(error.message, 'the error event says why');
          return;
        }
        assert.ok(error, `the ${client} SDK reports an error (got ${JSON.stringify(result)?.slice(0, 300)})`);
        assert.ok(error instanceof sdkOf(client).APIError, describeError(error));
        assert.ok(error.message.length > 0);
      });
    }
  }
});
