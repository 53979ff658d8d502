// Gemini thought signatures through every client format, streamed and not (issue #17): a recorded
// Gemini answer with signed function calls (one call; two parallel calls streamed as Vertex
// partialArgs, only the first signed) is replayed to each SDK, the SDK sends the results back
// the way its users do, and the mock refuses the second turn with Gemini's own 400 unless each
// recorded signature came back on the functionCall part it came with (docs/mock-provider.md).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { mockText, startStack } from './lib/stack.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = process.env.SLUICE_FIXTURES_DIR ?? path.join(here, '..', 'fixtures');
const MODEL = 'gemini-3-flash';
const RESULT = '18 degrees and sunny';

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

// The recorded calls: [name, signature or undefined] in answer order, read from the file.
function recordedCalls(fixture) {
  const text = fs.readFileSync(path.join(FIXTURES, fixture), 'utf8');
  const chunks = fixture.endsWith('.json') ? [JSON.parse(text)] : text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const calls = [];
  for (const chunk of chunks) {
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      if (!part.functionCall) continue;
      if (part.functionCall.name) calls.push([part.functionCall.name, part.thoughtSignature]);
      else if (part.thoughtSignature && calls.length) calls[calls.length - 1][1] ??= part.thoughtSignature;
    }
  }
  return calls;
}

const RECORDINGS = [
  { fixture: 'gemini/vercel-ai__google-tool-call.json', streamed: false },
  { fixture: 'gemini/vercel-ai__google-tool-call.chunks.txt', streamed: true },
  { fixture: 'gemini/vercel-ai__google-stream-tool-call-arguments.chunks.txt', streamed: true },
];

const tool = (name) => ({
  name,
  description: 'The weather in a place.',
  schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
});

// What the provider got on the second turn: the model turn's calls as [name, signature].
async function secondTurnCalls() {
  const requests = await stack.mockRequests();
  const body = requests.at(-1).json;
  return body.contents
    .filter((c) => c.role === 'model')
    .flatMap((c) => c.parts.filter((p) => p.functionCall).map((p) => [p.functionCall.name, p.thoughtSignature]));
}

for (const { fixture, streamed } of RECORDINGS) {
  const calls = recordedCalls(fixture);
  const names = [...new Set(calls.map(([name]) => name))];
  describe(`${path.basename(fixture)} (${streamed ? 'streamed' : 'not streamed'}, ${calls.length} call(s))`, () => {
    test('Anthropic client', async () => {
      const script = { fixture };
      const request = {
        model: MODEL,
        max_tokens: 512,
        tools: names.map((n) => ({ name: n, description: tool(n).description, input_schema: tool(n).schema })),
        messages: [{ role: 'user', content: 'Weather? Use the tool.' }],
      };
      const client = stack.anthropic({ script });
      const first = streamed ? await client.messages.stream(request).finalMessage() : await client.messages.create(request);
      const uses = first.content.filter((b) => b.type === 'tool_use');
      assert.equal(uses.length, calls.length);
      const second = {
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content: first.content },
          { role: 'user', content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: RESULT })) },
        ],
      };
      const plain = stack.anthropic();
      const answer = streamed ? await plain.messages.stream(second).finalMessage() : await plain.messages.create(second);
      assert.equal(answer.content.find((b) => b.type === 'text')?.text, mockText(MODEL));
      assert.deepEqual(await secondTurnCalls(), calls);
    });

    test('Chat client', async () => {
      const request = {
        model: MODEL,
        tools: names.map((n) => ({ type: 'function', function: { name: n, description: tool(n).description, parameters: tool(n).schema } })),
        messages: [{ role: 'user', content: 'Weather? Use the tool.' }],
      };
      const client = stack.openai({ script: { fixture } });
      const first = streamed
        ? await client.chat.completions.stream({ ...request, stream_options: { include_usage: true } }).finalChatCompletion()
        : await client.chat.completions.create(request);
      const message = first.choices[0].message;
      assert.equal(message.tool_calls.length, calls.length);
      const second = {
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content: message.content ?? null, tool_calls: message.tool_calls.map((c) => ({ id: c.id, type: 'function', function: c.function })) },
          ...message.tool_calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: RESULT })),
        ],
      };
      const plain = stack.openai();
      const answer = streamed
        ? await plain.chat.completions.stream({ ...second, stream_options: { include_usage: true } }).finalChatCompletion()
        : await plain.chat.completions.create(second);
      assert.equal(answer.choices[0].message.content, mockText(MODEL));
      assert.deepEqual(await secondTurnCalls(), calls);
    });

    test('Responses client', async () => {
      const request = {
        model: MODEL,
        tools: names.map((n) => ({ type: 'function', name: n, description: tool(n).description, parameters: tool(n).schema, strict: false })),
        input: [{ role: 'user', content: 'Weather? Use the tool.' }],
      };
      const client = stack.openai({ script: { fixture } });
      const first = streamed ? await client.responses.stream(request).finalResponse() : await client.responses.create(request);
      const fcs = first.output.filter((item) => item.type === 'function_call');
      assert.equal(fcs.length, calls.length);
      const second = {
        ...request,
        input: [
          ...request.input,
          ...first.output,
          ...fcs.map((c) => ({ type: 'function_call_output', call_id: c.call_id, output: RESULT })),
        ],
      };
      const plain = stack.openai();
      const answer = streamed ? await plain.responses.stream(second).finalResponse() : await plain.responses.create(second);
      assert.equal(answer.output_text, mockText(MODEL));
      assert.deepEqual(await secondTurnCalls(), calls);
    });
  });
}
