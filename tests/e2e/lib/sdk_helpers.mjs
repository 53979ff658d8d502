// Helpers for the vendor SDKs the tests drive: the AI SDK's streamed tool round trip through the
// gateway's Chat endpoint (`get_weather` called, its result sent back, the answer streamed), and a
// google-auth-library transporter that keeps the request instead of sending it.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';

export const WEATHER_RESULT = '18 degrees and sunny';

export function weatherTool() {
  return tool({
    description: 'The current weather in a city.',
    inputSchema: jsonSchema({
      type: 'object',
      properties: { city: { type: 'string', description: 'The city' } },
      required: ['city'],
      additionalProperties: false,
    }),
    execute: async () => WEATHER_RESULT,
  });
}

export async function streamedToolRoundTrip(stack, model) {
  const sluice = createOpenAICompatible({ name: 'sluice', baseURL: `${stack.gatewayUrl}/v1`, apiKey: stack.apiKey, includeUsage: true });
  const result = streamText({
    model: sluice.chatModel(model),
    tools: { get_weather: weatherTool() },
    prompt: 'What is the weather in Paris? Use the tool.',
    stopWhen: stepCountIs(3),
    maxRetries: 0,
  });
  let text = '';
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') text += part.text;
    if (part.type === 'error') throw part.error;
  }
  return { text, steps: await result.steps };
}

// A google-auth-library transporter that keeps the request it is given and answers a token.
export function capturingTransporter(sink) {
  return {
    interceptors: { request: { add() {} }, response: { add() {} } },
    request: async (options) => {
      sink.push(options);
      return { data: { access_token: 'unused', expires_in: 3600, token_type: 'Bearer' } };
    },
  };
}
