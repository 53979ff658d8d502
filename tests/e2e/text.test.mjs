// Plain text answers through every client endpoint in front of every provider wire, streamed and
// not: the official SDKs must get the mock's text, the right stop reason and the usage the mock
// counted, in each wire's own counting rules.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { MODELS, mockText, startStack, tokens } from './lib/stack.mjs';

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

const SYSTEM = 'You are a terse assistant.';
const PROMPT = 'Say hello to the end-to-end test.';
// The mock counts all prompt text concatenated: system first, then the messages.
const INPUT = tokens(SYSTEM + PROMPT);

function anthropicRequest(model) {
  return { model, max_tokens: 256, system: SYSTEM, messages: [{ role: 'user', content: PROMPT }] };
}

function chatRequest(model) {
  return {
    model,
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: PROMPT },
    ],
  };
}

function responsesRequest(model) {
  return { model, instructions: SYSTEM, input: PROMPT };
}

function assertAnthropicMessage(message, { model, upstream }) {
  assert.equal(message.type, 'message');
  assert.equal(message.role, 'assistant');
  assert.equal(message.model, model);
  assert.deepEqual(
    message.content.map((b) => b.type),
    ['text'],
  );
  assert.equal(message.content[0].text, mockText(upstream));
  assert.equal(message.stop_reason, 'end_turn');
  assert.equal(message.usage.input_tokens, INPUT);
  assert.equal(message.usage.output_tokens, tokens(mockText(upstream)));
  assert.equal(message.usage.cache_read_input_tokens ?? 0, 0);
  assert.equal(message.usage.cache_creation_input_tokens ?? 0, 0);
}

function assertChatUsage(usage, upstream) {
  assert.ok(usage, 'usage is present');
  assert.equal(usage.prompt_tokens, INPUT);
  assert.equal(usage.completion_tokens, tokens(mockText(upstream)));
  assert.equal(usage.total_tokens, INPUT + tokens(mockText(upstream)));
  assert.equal(usage.prompt_tokens_details?.cached_tokens ?? 0, 0);
}

function assertResponse(response, { model, upstream }) {
  assert.equal(response.object, 'response');
  assert.equal(response.status, 'completed');
  assert.equal(response.model, model);
  assert.equal(response.output_text, mockText(upstream));
  const messages = response.output.filter((item) => item.type === 'message');
  assert.equal(messages.length, 1);
  assert.equal(messages[0].role, 'assistant');
  assert.deepEqual(
    messages[0].content.map((p) => [p.type, p.text]),
    [['output_text', mockText(upstream)]],
  );
  assert.equal(response.usage.input_tokens, INPUT);
  assert.equal(response.usage.output_tokens, tokens(mockText(upstream)));
  assert.equal(response.usage.total_tokens, INPUT + tokens(mockText(upstream)));
  assert.equal(response.usage.input_tokens_details?.cached_tokens ?? 0, 0);
  assert.equal(response.usage.output_tokens_details?.reasoning_tokens ?? 0, 0);
}

for (const target of MODELS) {
  const { model, wire, upstream } = target;

  describe(`${model} (${wire} wire)`, () => {
    test('Anthropic messages.create', async () => {
      const message = await stack.anthropic().messages.create(anthropicRequest(model));
      assertAnthropicMessage(message, target);
      assert.match(message.id, /^msg_/);
    });

    test('Anthropic messages.stream().finalMessage()', async () => {
      const stream = stack.anthropic().messages.stream(anthropicRequest(model));
      let streamed = '';
      const events = [];
      stream.on('text', (delta) => {
        streamed += delta;
      });
      stream.on('streamEvent', (event) => events.push(event));
      const message = await stream.finalMessage();
      assertAnthropicMessage(message, target);
      assert.equal(streamed, mockText(upstream));
      assert.ok(events.filter((e) => e.type === 'content_block_delta').length > 1, 'the text came in several deltas');
      assert.equal(events[0].type, 'message_start');
      assert.equal(events.at(-1).type, 'message_stop');
      if (wire === 'anthropic' || wire === 'gemini') {
        // These providers state the input tokens in their first event: message_start carries them.
        assert.equal(events[0].message.usage.input_tokens, INPUT, 'message_start carries the real input usage');
      }
    });

    test('OpenAI chat.completions.create', async () => {
      const completion = await stack.openai().chat.completions.create(chatRequest(model));
      assert.equal(completion.object, 'chat.completion');
      assert.equal(completion.model, model);
      assert.equal(completion.choices.length, 1);
      const [choice] = completion.choices;
      assert.equal(choice.message.role, 'assistant');
      assert.equal(choice.message.content, mockText(upstream));
      assert.equal(choice.message.tool_calls ?? undefined, undefined);
      assert.equal(choice.finish_reason, 'stop');
      assertChatUsage(completion.usage, upstream);
    });

    test('OpenAI chat.completions.create stream (no usage asked)', async (t) => {
      const stream = await stack.openai().chat.completions.create({ ...chatRequest(model), stream: true });
      let text = '';
      let finish = null;
      let role = null;
      const ids = new Set();
      const withUsage = [];
      let chunks = 0;
      for await (const chunk of stream) {
        chunks += 1;
        assert.equal(chunk.object, 'chat.completion.chunk');
        ids.add(chunk.id);
        if ((chunk.usage ?? null) !== null) withUsage.push(chunk);
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.delta.role) role ??= choice.delta.role;
        text += choice.delta.content ?? '';
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      assert.ok(chunks > 2);
      assert.equal(ids.size, 1, 'every chunk carries the same id');
      assert.equal(role, 'assistant');
      assert.equal(text, mockText(upstream));
      assert.equal(finish, 'stop');
      await t.test(
        'no usage chunk without stream_options.include_usage',
        {},
        () => {
          assert.deepEqual(withUsage, []);
        },
      );
    });

    test('OpenAI chat.completions.stream().finalChatCompletion() with include_usage', async () => {
      const stream = stack.openai().chat.completions.stream({
        ...chatRequest(model),
        stream_options: { include_usage: true },
      });
      let streamed = '';
      stream.on('content', (delta) => {
        streamed += delta;
      });
      const completion = await stream.finalChatCompletion();
      assert.equal(streamed, mockText(upstream));
      assert.equal(completion.choices[0].message.content, mockText(upstream));
      assert.equal(completion.choices[0].finish_reason, 'stop');
      assertChatUsage(completion.usage, upstream);
    });

    test('OpenAI responses.create', async () => {
      const response = await stack.openai().responses.create(responsesRequest(model));
      assertResponse(response, target);
    });

    test('OpenAI responses.stream().finalResponse()', async () => {
      const stream = stack.openai().responses.stream(responsesRequest(model));
      let streamed = '';
      const sequence = [];
      const types = [];
      stream.on('event', (event) => {
        sequence.push(event.sequence_number);
        types.push(event.type);
      });
      stream.on('response.output_text.delta', (event) => {
        streamed += event.delta;
      });
      const response = await stream.finalResponse();
      assertResponse(response, target);
      assert.equal(streamed, mockText(upstream));
      assert.deepEqual(
        sequence,
        sequence.map((_, i) => i),
        'sequence_number counts from 0 by 1',
      );
      assert.equal(types[0], 'response.created');
      assert.equal(types.at(-1), 'response.completed');
    });

    // Cached prompt tokens: Anthropic reports input without the cache, the OpenAI wires and Gemini
    // with it. The script's input_tokens is the uncached part.
    const cached = { input_tokens: 10, cache_read: 20, output_tokens: 7 };
    if (wire === 'anthropic' || wire === 'openai-chat') cached.cache_write = 5;
    const write = cached.cache_write ?? 0;
    const promptTotal = 10 + 20 + write;

    for (const streamed of [false, true]) {
      const how = streamed ? 'streamed' : 'not streamed';

      test(`cache usage, Anthropic client, ${how}`, async () => {
        const client = stack.anthropic({ script: { usage: cached } });
        const message = streamed
          ? await client.messages.stream(anthropicRequest(model)).finalMessage()
          : await client.messages.create(anthropicRequest(model));
        assert.equal(message.usage.input_tokens, 10);
        assert.equal(message.usage.cache_read_input_tokens, 20);
        assert.equal(message.usage.cache_creation_input_tokens ?? 0, write);
        assert.equal(message.usage.output_tokens, 7);
      });

      test(`cache usage, Chat client, ${how}`, async () => {
        const client = stack.openai({ script: { usage: cached } });
        const completion = streamed
          ? await client.chat.completions
              .stream({ ...chatRequest(model), stream_options: { include_usage: true } })
              .finalChatCompletion()
          : await client.chat.completions.create(chatRequest(model));
        assert.equal(completion.usage.prompt_tokens, promptTotal);
        assert.equal(completion.usage.prompt_tokens_details?.cached_tokens, 20);
        assert.equal(completion.usage.completion_tokens, 7);
        assert.equal(completion.usage.total_tokens, promptTotal + 7);
      });

      test(`cache usage, Responses client, ${how}`, async () => {
        const client = stack.openai({ script: { usage: cached } });
        const response = streamed
          ? await client.responses.stream(responsesRequest(model)).finalResponse()
          : await client.responses.create(responsesRequest(model));
        assert.equal(response.usage.input_tokens, promptTotal);
        assert.equal(response.usage.input_tokens_details?.cached_tokens, 20);
        assert.equal(response.usage.output_tokens, 7);
        assert.equal(response.usage.total_tokens, promptTotal + 7);
      });
    }
  });
}
