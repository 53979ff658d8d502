// A tool call round trip through every client endpoint in front of every provider wire, streamed
// and not: the SDK accumulates the call (name, parsed arguments, id); the test sends the result
// back in the SDK's own shape with the id the gateway gave, and gets the final text. The provider
// must see, on the second turn, its own call and the result joined by its own id (for Gemini,
// which sends no ids, by name), so ids are stable across turns. Gemini signs its calls: the
// mock refuses a second turn whose call lacks the exact thoughtSignature it handed out, so every
// Gemini round trip here passes only when the signature came back on the call's part.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { MODELS, mockCallSignature, mockText, startStack } from './lib/stack.mjs';

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

const PROMPT = 'What is the weather in Paris? Use the tool.';
const RESULT = '18 degrees and sunny';
const TOOL = {
  name: 'get_weather',
  description: 'The current weather in a city.',
  schema: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'The city' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['city', 'unit'],
  },
};
// What the mock builds from that schema: strings "mock-<property>", the first enum value.
const ARGS = { city: 'mock-city', unit: 'celsius' };

// The id the provider itself gave the call on the first turn, from the mock's request number.
function providerCallId(wire, seq) {
  if (wire === 'anthropic') return `toolu_mock_${seq}`;
  if (wire === 'openai-chat' || wire === 'openai-responses') return `call_mock_${seq}`;
  return null; // Gemini gives none
}

// The two provider requests of the round trip: [first turn, second turn].
async function lastTwoProviderRequests() {
  const requests = await stack.mockRequests();
  assert.ok(requests.length >= 2, 'the mock saw both turns');
  return requests.slice(-2);
}

// On the provider's own wire, the second turn must hold the first turn's call and the result,
// joined by the provider's id (by name for Gemini), with the arguments unchanged.
function assertProviderSawRoundTrip(wire, first, second, upstream) {
  const body = second.json;
  const expectedId = providerCallId(wire, first.seq);
  if (wire === 'anthropic') {
    const uses = body.messages.flatMap((m) =>
      m.role === 'assistant' && Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_use') : [],
    );
    const results = body.messages.flatMap((m) =>
      m.role === 'user' && Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : [],
    );
    assert.equal(uses.length, 1);
    assert.equal(results.length, 1);
    assert.equal(uses[0].id, expectedId);
    assert.equal(uses[0].name, TOOL.name);
    assert.deepEqual(uses[0].input, ARGS);
    assert.equal(results[0].tool_use_id, expectedId);
    assert.match(JSON.stringify(results[0].content), new RegExp(RESULT));
  } else if (wire === 'openai-chat') {
    const calls = body.messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []) : []));
    const results = body.messages.filter((m) => m.role === 'tool');
    assert.equal(calls.length, 1);
    assert.equal(results.length, 1);
    assert.equal(calls[0].id, expectedId);
    assert.equal(calls[0].function.name, TOOL.name);
    assert.deepEqual(JSON.parse(calls[0].function.arguments), ARGS);
    assert.equal(results[0].tool_call_id, expectedId);
    assert.match(JSON.stringify(results[0].content), new RegExp(RESULT));
  } else if (wire === 'openai-responses') {
    const input = Array.isArray(body.input) ? body.input : [];
    const calls = input.filter((i) => i.type === 'function_call');
    const outputs = input.filter((i) => i.type === 'function_call_output');
    assert.equal(calls.length, 1);
    assert.equal(outputs.length, 1);
    assert.equal(calls[0].call_id, expectedId);
    assert.equal(calls[0].name, TOOL.name);
    assert.deepEqual(JSON.parse(calls[0].arguments), ARGS);
    assert.equal(outputs[0].call_id, expectedId);
    assert.match(JSON.stringify(outputs[0].output), new RegExp(RESULT));
  } else {
    const parts = body.contents.flatMap((c) => c.parts.map((p) => ({ role: c.role, ...p })));
    const calls = parts.filter((p) => p.functionCall);
    const responses = parts.filter((p) => p.functionResponse);
    assert.equal(calls.length, 1);
    assert.equal(responses.length, 1);
    assert.equal(calls[0].role, 'model');
    assert.equal(calls[0].functionCall.name, TOOL.name);
    assert.equal(calls[0].thoughtSignature, mockCallSignature(upstream, first.seq, 0, TOOL.name));
    assert.deepEqual(calls[0].functionCall.args, ARGS);
    assert.equal(responses[0].role, 'user');
    assert.equal(responses[0].functionResponse.name, TOOL.name);
    assert.match(JSON.stringify(responses[0].functionResponse.response), new RegExp(RESULT));
  }
}

for (const { model, wire, upstream } of MODELS) {
  describe(`${model} (${wire} wire)`, () => {
    for (const streamed of [false, true]) {
      const how = streamed ? 'streamed' : 'not streamed';

      test(`Anthropic tool_use → tool_result round trip, ${how}`, async () => {
        const client = stack.anthropic();
        const request = {
          model,
          max_tokens: 512,
          tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.schema }],
          messages: [{ role: 'user', content: PROMPT }],
        };
        const first = streamed
          ? await client.messages.stream(request).finalMessage()
          : await client.messages.create(request);
        assert.equal(first.stop_reason, 'tool_use');
        const uses = first.content.filter((b) => b.type === 'tool_use');
        assert.equal(uses.length, 1);
        assert.equal(uses[0].name, TOOL.name);
        assert.deepEqual(uses[0].input, ARGS);
        assert.equal(typeof uses[0].id, 'string');
        assert.ok(uses[0].id.length > 0);

        const secondRequest = {
          ...request,
          messages: [
            ...request.messages,
            { role: 'assistant', content: first.content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: uses[0].id, content: RESULT }] },
          ],
        };
        const second = streamed
          ? await client.messages.stream(secondRequest).finalMessage()
          : await client.messages.create(secondRequest);
        assert.equal(second.stop_reason, 'end_turn');
        assert.deepEqual(
          second.content.map((b) => [b.type, b.text]),
          [['text', mockText(upstream)]],
        );
        const [providerFirst, providerSecond] = await lastTwoProviderRequests();
        assertProviderSawRoundTrip(wire, providerFirst, providerSecond, upstream);
      });

      test(`Chat tool_calls → role:tool round trip, ${how}`, async () => {
        const client = stack.openai();
        const request = {
          model,
          tools: [
            { type: 'function', function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.schema } },
          ],
          messages: [{ role: 'user', content: PROMPT }],
        };
        const first = streamed
          ? await client.chat.completions
              .stream({ ...request, stream_options: { include_usage: true } })
              .finalChatCompletion()
          : await client.chat.completions.create(request);
        const [choice] = first.choices;
        assert.equal(choice.finish_reason, 'tool_calls');
        const calls = choice.message.tool_calls ?? [];
        assert.equal(calls.length, 1);
        assert.equal(calls[0].type, 'function');
        assert.equal(calls[0].function.name, TOOL.name);
        assert.deepEqual(JSON.parse(calls[0].function.arguments), ARGS);
        assert.ok(calls[0].id.length > 0);

        const secondRequest = {
          ...request,
          messages: [
            ...request.messages,
            {
              role: 'assistant',
              content: choice.message.content ?? null,
              tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: c.function })),
            },
            { role: 'tool', tool_call_id: calls[0].id, content: RESULT },
          ],
        };
        const second = streamed
          ? await client.chat.completions
              .stream({ ...secondRequest, stream_options: { include_usage: true } })
              .finalChatCompletion()
          : await client.chat.completions.create(secondRequest);
        assert.equal(second.choices[0].finish_reason, 'stop');
        assert.equal(second.choices[0].message.content, mockText(upstream));
        const [providerFirst, providerSecond] = await lastTwoProviderRequests();
        assertProviderSawRoundTrip(wire, providerFirst, providerSecond, upstream);
      });

      test(`Responses function_call → function_call_output round trip, ${how}`, async () => {
        const client = stack.openai();
        const request = {
          model,
          tools: [
            {
              type: 'function',
              name: TOOL.name,
              description: TOOL.description,
              parameters: TOOL.schema,
              strict: false,
            },
          ],
          input: [{ role: 'user', content: PROMPT }],
        };
        const first = streamed
          ? await client.responses.stream(request).finalResponse()
          : await client.responses.create(request);
        assert.equal(first.status, 'completed');
        const calls = first.output.filter((item) => item.type === 'function_call');
        assert.equal(calls.length, 1);
        assert.equal(calls[0].name, TOOL.name);
        assert.deepEqual(JSON.parse(calls[0].arguments), ARGS);
        assert.ok(calls[0].call_id.length > 0);

        // As Responses clients do: every output item back (reasoning items carry signatures).
        const secondRequest = {
          ...request,
          input: [
            ...request.input,
            ...first.output,
            { type: 'function_call_output', call_id: calls[0].call_id, output: RESULT },
          ],
        };
        const second = streamed
          ? await client.responses.stream(secondRequest).finalResponse()
          : await client.responses.create(secondRequest);
        assert.equal(second.status, 'completed');
        assert.equal(second.output_text, mockText(upstream));
        assert.equal(second.output.filter((item) => item.type === 'function_call').length, 0);
        const [providerFirst, providerSecond] = await lastTwoProviderRequests();
        assertProviderSawRoundTrip(wire, providerFirst, providerSecond, upstream);
      });
    }
  });
}
