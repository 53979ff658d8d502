// Data protection with the official SDKs: the shipped catalog with gateway.data_protection
// declared (every provider is then `public`), a prompt carrying an e-mail address and an API key,
// streamed through each client endpoint. The mock is scripted to answer with the text it received
// in 3-byte pieces, so the placeholders it got come back split across events; the SDK must
// accumulate the original values, and the provider must never have seen them.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { startStack } from './lib/stack.mjs';

const EMAIL = 'dana.scully@example.com';
const API_KEY = 'sk-proj-Zx81Qw7Er6Ty5Ui4Op3As2Df1Gh0JkLm';
const PROMPT = `Summarise: ${EMAIL} pasted the key ${API_KEY} into the ticket; reply to ${EMAIL}.`;
const SCRIPT = { echo_text: true, text_chunk_bytes: 3 };

let stack;
before(async () => {
  stack = await startStack({
    editCatalog(dir) {
      const file = path.join(dir, 'ai/gateway.yaml');
      fs.appendFileSync(file, '  data_protection:\n    mask: [email, api_key, password, private_key]\n');
    },
  });
});
after(async () => {
  await stack?.stop();
});

// The last provider request: the masked prompt, never the originals.
async function assertProviderSawPlaceholders() {
  const requests = await stack.mockRequests();
  assert.ok(requests.length > 0, 'the mock got the request');
  const body = requests.at(-1).body;
  assert.ok(!body.includes(EMAIL), `the provider got the e-mail address: ${body}`);
  assert.ok(!body.includes(API_KEY), `the provider got the API key: ${body}`);
  assert.match(body, /EMAIL_1/);
  assert.match(body, /API_KEY_1/);
}

describe('data protection', () => {
  test('Anthropic SDK, streamed: the answer carries the originals back', async () => {
    const client = stack.anthropic({ script: SCRIPT });
    const stream = client.messages.stream({
      model: 'claude-sonnet-5-5',
      max_tokens: 512,
      messages: [{ role: 'user', content: PROMPT }],
    });
    let deltas = 0;
    stream.on('text', () => {
      deltas += 1;
    });
    const message = await stream.finalMessage();
    assert.equal(message.content[0].type, 'text');
    assert.equal(message.content[0].text, PROMPT);
    assert.ok(deltas > 10, `the answer streamed in pieces (${deltas})`);
    await assertProviderSawPlaceholders();
  });

  test('OpenAI SDK, chat completions streamed: the answer carries the originals back', async () => {
    const client = stack.openai({ script: SCRIPT });
    const stream = await client.chat.completions.create({
      model: 'deepseek-flash',
      stream: true,
      messages: [{ role: 'user', content: PROMPT }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    assert.equal(text, PROMPT);
    await assertProviderSawPlaceholders();
  });

  test('OpenAI SDK, responses streamed: the answer carries the originals back', async () => {
    const client = stack.openai({ script: SCRIPT });
    const stream = await client.responses.create({ model: 'gpt-5-5', stream: true, input: PROMPT });
    let text = '';
    let done = '';
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.output_text.done') done = event.text;
    }
    assert.equal(text, PROMPT);
    assert.equal(done, PROMPT);
    await assertProviderSawPlaceholders();
  });
});
