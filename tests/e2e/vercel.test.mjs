// The Vercel AI SDK against the gateway, with its default settings:
// - the OpenAI Responses provider (`@ai-sdk/openai`, store on by default) runs a two-turn tool
//   conversation; on the second turn it sends `item_reference`s to the answers of the first
//   (function calls go inline), which the gateway resolves from its own store, so any provider
//   wire can serve them;
// - the OpenAI-compatible provider (`@ai-sdk/openai-compatible`) streams a tool round trip through
//   /v1/chat/completions, against Gemini too, whose mock refuses a second turn without the thought
//   signature it handed out on the call.
// The store needs a database (scripts/test.sh sets SLUICE_TEST_DATABASE_URL); without one those
// cases are skipped.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';

import { MODELS, mockText, startStack } from './lib/stack.mjs';

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

const RESULT = '18 degrees and sunny';
const weather = () =>
  tool({
    description: 'The current weather in a city.',
    inputSchema: jsonSchema({
      type: 'object',
      properties: { city: { type: 'string', description: 'The city' } },
      required: ['city'],
      additionalProperties: false,
    }),
    execute: async () => RESULT,
  });

const stored = process.env.SLUICE_TEST_DATABASE_URL ? false : 'needs a database (the gateway is the store)';

// Every text the provider was sent on its last request, as one string.
async function lastProviderBody() {
  const requests = await stack.mockRequests();
  return requests[requests.length - 1].body;
}

describe('Vercel AI SDK, OpenAI Responses provider (store on): a two-turn tool conversation', () => {
  for (const { model, wire, upstream } of MODELS) {
    test(`${model} (${wire})`, { skip: stored }, async () => {
      // The SDK refers to a gpt-5 answer by id only after its reasoning item, so that model reasons.
      const reasoning = model.startsWith('gpt-5');
      const openai = createOpenAI({
        baseURL: `${stack.gatewayUrl}/v1`,
        apiKey: stack.apiKey,
        headers: reasoning ? { 'x-mock-script': JSON.stringify({ thinking: true }) } : {},
      });
      const tools = { get_weather: weather() };
      const first = await generateText({
        model: openai.responses(model),
        tools,
        prompt: 'What is the weather in Paris? Use the tool.',
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      assert.equal(first.steps.length, 2, 'a tool call, then the answer');
      assert.equal(first.steps[0].toolCalls[0].toolName, 'get_weather');
      assert.match(first.text, new RegExp(mockText(upstream).replace(/[().]/g, '\\$&')));
      let sent = await lastProviderBody();
      assert.ok(sent.includes('get_weather'), 'the provider saw the stored call');
      assert.ok(sent.includes(RESULT), 'and its result');
      assert.ok(!sent.includes('item_reference'));

      const second = await generateText({
        model: openai.responses(model),
        tools,
        messages: [
          { role: 'user', content: 'What is the weather in Paris? Use the tool.' },
          ...first.response.messages,
          { role: 'user', content: 'And should I take an umbrella?' },
        ],
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      assert.ok(second.text.length > 0);
      // The SDK referred to the first turn's answer by its id; the provider got it inlined.
      assert.match(JSON.stringify(second.steps[0].request.body), /item_reference/, 'the SDK used the store');
      sent = await lastProviderBody();
      assert.ok(sent.includes(mockText(upstream)), 'the first turn\'s answer reached the provider again');
      assert.ok(sent.includes('umbrella'));
      assert.ok(!sent.includes('item_reference'));
    });
  }
});

describe('Vercel AI SDK, OpenAI-compatible provider: a streamed tool round trip', () => {
  for (const { model, wire, upstream } of MODELS) {
    test(`${model} (${wire})`, async () => {
      const sluice = createOpenAICompatible({
        name: 'sluice',
        baseURL: `${stack.gatewayUrl}/v1`,
        apiKey: stack.apiKey,
        includeUsage: true,
      });
      const result = streamText({
        model: sluice.chatModel(model),
        tools: { get_weather: weather() },
        prompt: 'What is the weather in Paris? Use the tool.',
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      let text = '';
      for await (const part of result.fullStream) {
        if (part.type === 'text-delta') text += part.text;
        if (part.type === 'error') throw part.error;
      }
      const steps = await result.steps;
      assert.equal(steps.length, 2, 'a tool call, then the answer');
      assert.equal(steps[0].toolCalls[0].toolName, 'get_weather');
      assert.equal(text, mockText(upstream));
      const sent = await lastProviderBody();
      assert.ok(sent.includes(RESULT));
    });
  }
});
