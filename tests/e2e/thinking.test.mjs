// Thinking and reasoning through every client endpoint in front of every provider wire:
// - Anthropic `thinking` enabled → a thinking block with its signature; sending the assistant turn
//   back (thinking block included) is accepted, and the provider gets its own signature back
//   unchanged, also when the turn holds a tool call (the case providers enforce).
// - Responses `reasoning` → a reasoning item (summary, encrypted_content) that round-trips.
// - Reasoning tokens reach the Chat and Responses usage.
// The OpenAI Chat wire shows no reasoning (only a token count), so over it the thinking block is
// absent but the counts still add up.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { MODELS, mockSignature, mockText, mockThinking, startStack, tokens } from './lib/stack.mjs';

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

const PROMPT = 'Greet the end-to-end test, briefly.';
const FOLLOW_UP = 'Thanks. Once more, please.';
const TOOL_PROMPT = 'What is the weather in Oslo? Use the tool.';
const RESULT = '4 degrees and raining';
const TOOL = {
  name: 'get_weather',
  description: 'The current weather in a city.',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const ARGS = { city: 'mock-city' };

// Wires that show the reasoning text (the OpenAI Chat wire only counts it).
const showsThinking = (wire) => wire !== 'openai-chat';

// Gemini streams its thought signature on an empty last part, after the answer; the gateway never
// holds the answer back for it, so a streamed Gemini turn that thought and answered in text ends
// with a signed empty thinking block (Responses: reasoning item), and its thought summary carries
// the empty Gemini envelope. Not streamed, Gemini signs the answer part and the summary block takes
// that signature. `settleGeminiTrailingSignature` moves a trailing signature onto the first
// thinking block, checking on the way that it has exactly that documented form; what remains must
// equal the not-streamed answer.
const EMPTY_GEMINI_ENVELOPE = 'sluice:gemini::';

function settleGeminiTrailingSignature(content, { blocks }) {
  const isThought = blocks === 'anthropic' ? (b) => b.type === 'thinking' : (i) => i.type === 'reasoning';
  const signatureOf = blocks === 'anthropic' ? (b) => b.signature : (i) => i.encrypted_content;
  const textOf = blocks === 'anthropic' ? (b) => b.thinking : (i) => i.summary.map((s) => s.text).join('');
  const last = content.at(-1);
  if (content.length < 3 || !isThought(last) || isThought(content.at(-2))) return content;
  assert.equal(textOf(last), '', 'the trailing block only carries the signature');
  assert.ok(signatureOf(last).startsWith(EMPTY_GEMINI_ENVELOPE) && signatureOf(last).length > EMPTY_GEMINI_ENVELOPE.length);
  const first = content[0];
  assert.ok(isThought(first), 'the thought summary still comes first');
  assert.equal(signatureOf(first), EMPTY_GEMINI_ENVELOPE, 'the summary Gemini did not sign carries the empty envelope');
  const settled = content.slice(0, -1).map((b) => ({ ...b }));
  if (blocks === 'anthropic') settled[0].signature = last.signature;
  else settled[0].encrypted_content = last.encrypted_content;
  return settled;
}

// An Anthropic assistant turn that thought: its thinking blocks come first (the Anthropic wire puts
// them before the answer), each is signed, and together they show the provider's reasoning text.
// (A gateway may use more than one block to keep where a provider put its signature.) `answer` is
// the block types expected after them.
function assertThinkingTurn(content, { wire, upstream, answer }) {
  const types = content.map((b) => b.type);
  const thinking = content.filter((b) => b.type === 'thinking');
  if (!showsThinking(wire)) {
    assert.deepEqual(types, answer);
    return;
  }
  assert.ok(thinking.length >= 1, `a thinking block (got ${types})`);
  assert.deepEqual(types, [...thinking.map(() => 'thinking'), ...answer], 'thinking blocks come first');
  assert.equal(thinking.map((b) => b.thinking).join(''), mockThinking(upstream));
  assert.equal(thinking[0].thinking, mockThinking(upstream), 'the first block holds the reasoning');
  for (const block of thinking) {
    assert.equal(typeof block.signature, 'string');
    assert.ok(block.signature.length > 0, `every thinking block is signed: ${JSON.stringify(block)}`);
  }
  if (wire === 'anthropic') {
    assert.equal(thinking.length, 1);
    assert.equal(thinking[0].signature, mockSignature(upstream), 'the passthrough keeps the signature');
  }
}

// The answer text of an Anthropic message.
function textOf(content) {
  return content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

// A Responses output that reasoned: reasoning items first, each with encrypted_content, their
// summaries showing the provider's reasoning text, then the answer items.
function assertReasoningOutput(output, { wire, upstream, answer }) {
  const types = output.map((i) => i.type);
  const reasoning = output.filter((i) => i.type === 'reasoning');
  if (!showsThinking(wire)) {
    assert.deepEqual(types.filter((t) => t !== 'reasoning'), answer);
    return;
  }
  assert.ok(reasoning.length >= 1, `a reasoning item (got ${types})`);
  assert.deepEqual(types, [...reasoning.map(() => 'reasoning'), ...answer], 'reasoning items come first');
  assert.equal(
    reasoning.flatMap((r) => r.summary.map((s) => s.text)).join(''),
    mockThinking(upstream),
  );
  for (const item of reasoning) {
    assert.ok(item.summary.every((s) => s.type === 'summary_text'));
    assert.equal(typeof item.encrypted_content, 'string');
    assert.ok(item.encrypted_content.length > 0, `every reasoning item carries encrypted_content: ${JSON.stringify(item)}`);
  }
  if (wire === 'openai-responses') {
    assert.equal(reasoning.length, 1);
    assert.equal(reasoning[0].encrypted_content, mockSignature(upstream), 'the passthrough keeps encrypted_content');
  }
}

// A message or response as a comparable value: without ids (minted per request, also the mock's
// own `rs_mock_<n>` wherever it is carried) and without the `parsed` field the OpenAI SDK's stream
// helper adds to output_text parts.
function withoutIds(value) {
  const json = JSON.stringify(value, (key, v) =>
    ['id', 'created_at', 'call_id', 'tool_use_id', 'parsed'].includes(key) ? undefined : v,
  );
  return JSON.parse(json.replace(/rs_mock_\d+/g, 'rs_mock_N'));
}

async function lastProviderRequest() {
  return (await stack.mockJson('/_mock/last')).json;
}

// The provider's own signature must come back on its own wire, unchanged: Anthropic a thinking
// block (with the thinking text), Responses a reasoning item's encrypted_content, Gemini a
// thoughtSignature (on the function-call part when the turn called a tool).
function assertSignatureReturned(wire, upstream, body, { withTool }) {
  const signature = mockSignature(upstream);
  if (wire === 'anthropic') {
    const assistant = body.messages.filter((m) => m.role === 'assistant');
    assert.equal(assistant.length, 1);
    const blocks = assistant[0].content;
    assert.ok(Array.isArray(blocks), 'the assistant turn keeps its blocks');
    assert.equal(blocks[0].type, 'thinking', 'the thinking block comes first');
    assert.equal(blocks[0].thinking, mockThinking(upstream));
    assert.equal(blocks[0].signature, signature);
    if (withTool) assert.ok(blocks.some((b) => b.type === 'tool_use'));
  } else if (wire === 'openai-responses') {
    const input = body.input;
    assert.ok(Array.isArray(input));
    const reasoning = input.filter((i) => i.type === 'reasoning');
    assert.equal(reasoning.length, 1, 'the reasoning item goes back');
    assert.equal(reasoning[0].encrypted_content, signature);
    if (withTool) {
      const at = input.indexOf(reasoning[0]);
      assert.equal(input[at + 1]?.type, 'function_call', 'the reasoning item precedes its function call');
    }
  } else if (wire === 'gemini') {
    const model = body.contents.filter((c) => c.role === 'model');
    assert.equal(model.length, 1);
    const signed = model[0].parts.filter((p) => p.thoughtSignature);
    assert.equal(signed.length, 1, 'one part carries the thought signature');
    if (withTool) {
      // The mock signs a call with a signature of its own, which it checks on this turn.
      assert.ok(signed[0].functionCall, 'the signature stays on the function-call part');
      assert.match(
        Buffer.from(signed[0].thoughtSignature, 'base64').toString(),
        new RegExp(`^sluice-mock-thought-signature/${upstream}/\\d+/0/${TOOL.name}$`),
      );
    } else {
      assert.equal(signed[0].thoughtSignature, signature);
    }
    assert.ok(!model[0].parts.some((p) => p.thought), 'thought summaries are not sent back as text');
  }
}

for (const { model, wire, upstream } of MODELS) {
  const thinkingText = mockThinking(upstream);
  const reasoningTokens = tokens(thinkingText);
  const textTokens = tokens(mockText(upstream));

  describe(`${model} (${wire} wire)`, () => {
    // Only Gemini moves its signature when streaming (see settleGeminiTrailingSignature).
    const settle = (content, blocks) => (wire === 'gemini' ? settleGeminiTrailingSignature(content, { blocks }) : content);

    test('Anthropic thinking: streamed and not streamed give the same message', async () => {
      const client = stack.anthropic();
      const request = {
        model,
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: PROMPT }],
      };
      const whole = await client.messages.create(request);
      const streamed = await client.messages.stream(request).finalMessage();
      assert.deepEqual(withoutIds(settle(streamed.content, 'anthropic')), withoutIds(whole.content));
      assert.equal(streamed.stop_reason, whole.stop_reason);
      assert.deepEqual(streamed.usage, whole.usage);
    });

    test('Responses reasoning: streamed and not streamed give the same output', async () => {
      const client = stack.openai();
      const request = { model, reasoning: { effort: 'low', summary: 'auto' }, input: PROMPT };
      const whole = await client.responses.create(request);
      const streamed = await client.responses.stream(request).finalResponse();
      assert.deepEqual(withoutIds(settle(streamed.output, 'responses')), withoutIds(whole.output));
      assert.equal(streamed.status, whole.status);
      assert.deepEqual(streamed.usage, whole.usage);
    });

    for (const streamed of [false, true]) {
      const how = streamed ? 'streamed' : 'not streamed';

      test(`Anthropic thinking block with signature, and the turn sent back, ${how}`, async (t) => {
        const client = stack.anthropic();
        const request = {
          model,
          max_tokens: 4096,
          thinking: { type: 'enabled', budget_tokens: 1024 },
          messages: [{ role: 'user', content: PROMPT }],
        };
        const send = (body) => (streamed ? client.messages.stream(body).finalMessage() : client.messages.create(body));
        const first = await send(request);
        assert.equal(first.stop_reason, 'end_turn');
        assertThinkingTurn(settle(first.content, 'anthropic'), { wire, upstream, answer: ['text'] });
        assert.equal(textOf(first.content), mockText(upstream));
        if (showsThinking(wire)) {
          // (Over the Chat wire whether the provider thinks depends on the model's capabilities;
          // the forced-thinking Chat test below checks that count.)
          assert.equal(first.usage.output_tokens, textTokens + reasoningTokens, 'output tokens include thinking');
        }

        const second = await send({
          ...request,
          messages: [...request.messages, { role: 'assistant', content: first.content }, { role: 'user', content: FOLLOW_UP }],
        });
        assert.equal(second.stop_reason, 'end_turn');
        assert.equal(textOf(second.content), mockText(upstream));
        assertSignatureReturned(wire, upstream, await lastProviderRequest(), { withTool: false });
      });

      test(`Anthropic thinking + tool_use round trip keeps the signature, ${how}`, async (t) => {
        const client = stack.anthropic();
        const request = {
          model,
          max_tokens: 4096,
          thinking: { type: 'enabled', budget_tokens: 1024 },
          tools: [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.schema }],
          messages: [{ role: 'user', content: TOOL_PROMPT }],
        };
        const send = (body) => (streamed ? client.messages.stream(body).finalMessage() : client.messages.create(body));
        const first = await send(request);
        assert.equal(first.stop_reason, 'tool_use');
        // A signature on the call arrives with it: no trailing block to settle.
        assert.notEqual(first.content.at(-1).type, 'thinking');
        assertThinkingTurn(first.content, { wire, upstream, answer: ['tool_use'] });
        const uses = first.content.filter((b) => b.type === 'tool_use');
        assert.equal(uses.length, 1);
        const [use] = uses;
        assert.equal(use.name, TOOL.name);
        assert.deepEqual(use.input, ARGS);

        const second = await send({
          ...request,
          messages: [
            ...request.messages,
            { role: 'assistant', content: first.content },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: RESULT }] },
          ],
        });
        assert.equal(second.stop_reason, 'end_turn');
        assert.equal(textOf(second.content), mockText(upstream));
        assertSignatureReturned(wire, upstream, await lastProviderRequest(), { withTool: true });
      });

      test(`Responses reasoning item, and sent back, ${how}`, async (t) => {
        const client = stack.openai();
        const request = {
          model,
          reasoning: { effort: 'low', summary: 'auto' },
          include: ['reasoning.encrypted_content'],
          store: false,
          input: [{ role: 'user', content: PROMPT }],
        };
        const send = (body) => (streamed ? client.responses.stream(body).finalResponse() : client.responses.create(body));
        const first = await send(request);
        assert.equal(first.status, 'completed');
        assert.equal(first.output_text, mockText(upstream));
        assertReasoningOutput(settle(first.output, 'responses'), { wire, upstream, answer: ['message'] });
        if (showsThinking(wire)) assert.equal(first.usage.output_tokens, textTokens + reasoningTokens);
        if (showsThinking(wire) && wire !== 'anthropic') {
          // Anthropic states no separate thinking count.
          assert.equal(first.usage.output_tokens_details?.reasoning_tokens, reasoningTokens);
        }

        const replay = first.output.map((item) =>
          item.type === 'reasoning'
            ? { type: 'reasoning', id: item.id, summary: item.summary, encrypted_content: item.encrypted_content }
            : { type: 'message', role: 'assistant', id: item.id, status: item.status, content: item.content.map(({ type, text, annotations }) => ({ type, text, annotations })) },
        );
        const second = await send({
          ...request,
          input: [...request.input, ...replay, { role: 'user', content: FOLLOW_UP }],
        });
        assert.equal(second.status, 'completed');
        assert.equal(second.output_text, mockText(upstream));
        assertSignatureReturned(wire, upstream, await lastProviderRequest(), { withTool: false });
      });

      test(`Chat reasoning tokens in usage, ${how}`, async () => {
        // Forced thinking, so the count comes from the provider whatever the request mapping.
        const client = stack.openai({ script: { thinking: true } });
        const request = { model, reasoning_effort: 'low', messages: [{ role: 'user', content: PROMPT }] };
        const completion = streamed
          ? await client.chat.completions
              .stream({ ...request, stream_options: { include_usage: true } })
              .finalChatCompletion()
          : await client.chat.completions.create(request);
        assert.equal(completion.choices[0].message.content, mockText(upstream));
        assert.equal(completion.choices[0].finish_reason, 'stop');
        assert.equal(completion.usage.completion_tokens, textTokens + reasoningTokens);
        if (wire !== 'anthropic') {
          assert.equal(completion.usage.completion_tokens_details?.reasoning_tokens, reasoningTokens);
        }
      });
    }
  });
}
