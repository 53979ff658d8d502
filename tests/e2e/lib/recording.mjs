// Reads a recorded provider answer from tests/fixtures and says, in wire-neutral terms, what it
// holds: the answer text, the reasoning text and signature, the tool calls (name and parsed
// arguments), how it finished and its usage. The e2e tests compare what each client SDK
// accumulates through the gateway with this.
//
// Summary:
//   { text, thinking, signature, toolCalls: [{name, args}], finish, usage }
//   finish: 'stop' | 'length' | 'tool_calls' | 'content_filter'
//   usage:  { prompt (all prompt tokens, cached included), cacheRead, cacheWrite,
//             output (all output tokens, reasoning included), reasoning (null when not stated) }
//
// A `.chunks.txt` file can hold several answers one after the other (a multi-turn recording); the
// summary is of the first one, up to its terminal event.

import fs from 'node:fs';
import path from 'node:path';

import { fixturesDir } from './stack.mjs';

export function fixturePath(name) {
  return path.join(fixturesDir, name);
}

function chunkLines(name) {
  return fs
    .readFileSync(fixturePath(name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

function parseArgs(text) {
  return text === '' || text === undefined ? {} : JSON.parse(text);
}

const ANTHROPIC_FINISH = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
};

const GEMINI_FINISH = { STOP: 'stop', MAX_TOKENS: 'length', SAFETY: 'content_filter' };

function emptySummary() {
  return { text: '', thinking: '', signature: '', toolCalls: [], finish: null, usage: null };
}

// ---- Anthropic Messages ----

function anthropicUsage(usage) {
  const input = usage.input_tokens ?? 0;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    prompt: input + cacheRead + cacheWrite,
    cacheRead,
    cacheWrite,
    output: usage.output_tokens ?? 0,
    reasoning: usage.output_tokens_details?.thinking_tokens ?? null,
  };
}

function anthropicStream(events) {
  const out = emptySummary();
  const blocks = [];
  let usage = {};
  for (const event of events) {
    switch (event.type) {
      case 'message_start':
        usage = { ...event.message.usage };
        break;
      case 'content_block_start':
        blocks[event.index] = { ...event.content_block, json: '' };
        break;
      case 'content_block_delta': {
        const block = blocks[event.index];
        const d = event.delta;
        if (d.type === 'text_delta') block.text += d.text;
        else if (d.type === 'input_json_delta') block.json += d.partial_json;
        else if (d.type === 'thinking_delta') block.thinking += d.thinking;
        else if (d.type === 'signature_delta') block.signature = (block.signature ?? '') + d.signature;
        break;
      }
      case 'message_delta':
        // Cumulative: the values here win over message_start's.
        for (const [key, value] of Object.entries(event.usage ?? {})) if (value !== null) usage[key] = value;
        out.finish = ANTHROPIC_FINISH[event.delta.stop_reason] ?? event.delta.stop_reason;
        break;
      default:
        break;
    }
    if (event.type === 'message_stop') break;
  }
  for (const block of blocks) {
    if (!block) continue;
    if (block.type === 'text') out.text += block.text;
    else if (block.type === 'thinking') {
      out.thinking += block.thinking;
      out.signature += block.signature ?? '';
    } else if (block.type === 'tool_use') out.toolCalls.push({ name: block.name, args: parseArgs(block.json) });
  }
  out.usage = anthropicUsage(usage);
  return out;
}

function anthropicMessage(message) {
  const out = emptySummary();
  for (const block of message.content) {
    if (block.type === 'text') out.text += block.text;
    else if (block.type === 'thinking') {
      out.thinking += block.thinking;
      out.signature += block.signature ?? '';
    } else if (block.type === 'tool_use') out.toolCalls.push({ name: block.name, args: block.input });
  }
  out.finish = ANTHROPIC_FINISH[message.stop_reason] ?? message.stop_reason;
  out.usage = anthropicUsage(message.usage);
  return out;
}

// ---- OpenAI Chat Completions ----

function chatUsage(usage) {
  return {
    prompt: usage.prompt_tokens,
    cacheRead: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWrite: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
    output: usage.completion_tokens,
    reasoning: usage.completion_tokens_details?.reasoning_tokens ?? null,
  };
}

function chatStream(chunks) {
  const out = emptySummary();
  const calls = [];
  for (const chunk of chunks) {
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) continue;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string') out.text += delta.content;
      for (const call of delta.tool_calls ?? []) {
        const slot = (calls[call.index] ??= { name: '', args: '' });
        if (call.function?.name) slot.name += call.function.name;
        if (call.function?.arguments) slot.args += call.function.arguments;
      }
      if (choice.finish_reason) out.finish = choice.finish_reason;
    }
    if (chunk.usage) out.usage = chatUsage(chunk.usage);
  }
  out.toolCalls = calls.filter(Boolean).map((c) => ({ name: c.name, args: parseArgs(c.args) }));
  return out;
}

function chatCompletion(completion) {
  const out = emptySummary();
  const choice = completion.choices[0];
  out.text = choice.message.content ?? '';
  out.toolCalls = (choice.message.tool_calls ?? []).map((c) => ({
    name: c.function.name,
    args: parseArgs(c.function.arguments),
  }));
  out.finish = choice.finish_reason;
  out.usage = chatUsage(completion.usage);
  return out;
}

// ---- OpenAI Responses ----

function responsesUsage(usage) {
  return {
    prompt: usage.input_tokens,
    cacheRead: usage.input_tokens_details?.cached_tokens ?? 0,
    cacheWrite: usage.input_tokens_details?.cache_write_tokens ?? 0,
    output: usage.output_tokens,
    reasoning: usage.output_tokens_details?.reasoning_tokens ?? null,
  };
}

function responsesObject(response) {
  const out = emptySummary();
  for (const item of response.output) {
    if (item.type === 'message') {
      for (const part of item.content) if (part.type === 'output_text') out.text += part.text;
    } else if (item.type === 'reasoning') {
      out.thinking += (item.summary ?? []).map((s) => s.text).join('');
      out.signature += item.encrypted_content ?? '';
    } else if (item.type === 'function_call') {
      out.toolCalls.push({ name: item.name, args: parseArgs(item.arguments) });
    }
  }
  if (response.status === 'incomplete') {
    out.finish = response.incomplete_details?.reason === 'content_filter' ? 'content_filter' : 'length';
  } else if (response.status === 'failed') {
    out.finish = 'error';
    out.error = response.error;
  } else {
    out.finish = out.toolCalls.length > 0 ? 'tool_calls' : 'stop';
  }
  out.usage = response.usage ? responsesUsage(response.usage) : null;
  return out;
}

// The first answer of a Responses stream, rebuilt from its output_item.done events; the terminal
// event supplies status and usage. An `error` event is kept.
function responsesStream(events) {
  const items = [];
  let terminal = null;
  let error = null;
  for (const event of events) {
    if (event.type === 'response.output_item.done') items[event.output_index] = event.item;
    if (event.type === 'error') error = event.error ?? { code: event.code, message: event.message };
    if (['response.completed', 'response.incomplete', 'response.failed'].includes(event.type)) {
      terminal = event.response;
      break;
    }
  }
  const out = responsesObject({ ...terminal, output: items.filter(Boolean) });
  if (error) out.error = error;
  return out;
}

// ---- Gemini ----

function geminiUsage(meta) {
  const thoughts = meta.thoughtsTokenCount ?? 0;
  return {
    prompt: meta.promptTokenCount ?? 0,
    cacheRead: meta.cachedContentTokenCount ?? 0,
    cacheWrite: 0,
    output: (meta.candidatesTokenCount ?? 0) + thoughts,
    reasoning: meta.thoughtsTokenCount ?? null,
  };
}

function geminiChunks(chunks) {
  const out = emptySummary();
  let finish = null;
  for (const chunk of chunks) {
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.thought) out.thinking += part.text ?? '';
      else if (typeof part.text === 'string') out.text += part.text;
      if (part.functionCall) out.toolCalls.push({ name: part.functionCall.name, args: part.functionCall.args ?? {} });
      if (part.thoughtSignature) out.signature += part.thoughtSignature;
    }
    if (candidate?.finishReason) finish = candidate.finishReason;
    if (chunk.usageMetadata) out.usage = geminiUsage(chunk.usageMetadata);
  }
  out.finish = out.toolCalls.length > 0 && finish === 'STOP' ? 'tool_calls' : (GEMINI_FINISH[finish] ?? finish);
  return out;
}

// ---- entry points ----

// The wire of a fixture, from its folder.
export function fixtureWire(name) {
  return name.split('/')[0];
}

export function summarizeFixture(name) {
  const wire = fixtureWire(name);
  if (name.endsWith('.chunks.txt')) {
    const lines = chunkLines(name);
    if (wire === 'anthropic') return anthropicStream(lines);
    if (wire === 'openai-chat') return chatStream(lines);
    if (wire === 'openai-responses') return responsesStream(lines);
    if (wire === 'gemini') return geminiChunks(lines);
  } else if (name.endsWith('.json')) {
    const body = JSON.parse(fs.readFileSync(fixturePath(name), 'utf8'));
    if (body.error) return { ...emptySummary(), finish: 'error', error: body.error };
    if (wire === 'anthropic') return anthropicMessage(body);
    if (wire === 'openai-chat') return chatCompletion(body);
    if (wire === 'openai-responses') return responsesObject(body);
    if (wire === 'gemini') return geminiChunks([body]);
  }
  throw new Error(`cannot summarize fixture ${name}`);
}

// The same summary, from what a client SDK produced.
export const fromClient = {
  anthropic: anthropicMessage,
  chat: chatCompletion,
  responses: responsesObject,
};
