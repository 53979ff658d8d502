// Google application default credentials of a user (`gcloud auth application-default login`, an
// `authorized_user` file named by GOOGLE_APPLICATION_CREDENTIALS) through Sluice, judged with
// google-auth-library: the refresh-token grant Sluice posts carries what UserRefreshClient posts for
// the same file, the mock's token endpoint accepts it, and a revoked refresh token fails the
// Vertex deployment over to the next one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { UserRefreshClient } from 'google-auth-library';

import { capturingTransporter } from './lib/sdk_helpers.mjs';
import { mockText, startStack } from './lib/stack.mjs';

const USER = {
  type: 'authorized_user',
  client_id: '764086051850-e2e.apps.googleusercontent.com',
  client_secret: 'd-FL95Q19q7MQmFpd7hHD0Ty',
  refresh_token: '1//0e2e-refresh/token+value',
};

let dir;
let stack;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-e2e-gcp-user-'));
  fs.writeFileSync(path.join(dir, 'mock-user.json'), JSON.stringify(USER));
  stack = await startStack({
    mockArgs: ['--gcp-authorized-user', path.join(dir, 'mock-user.json'), '--token-lifetime', '600'],
    gatewayEnv: (mockUrl) => {
      fs.writeFileSync(path.join(dir, 'adc.json'), JSON.stringify({ ...USER, token_uri: `${mockUrl}/token` }));
      return { GOOGLE_APPLICATION_CREDENTIALS: path.join(dir, 'adc.json'), VERTEX_BASE_URL: mockUrl };
    },
  });
});
after(async () => {
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const hi = [{ role: 'user', content: 'Hi' }];

describe('a user’s Google credentials (authorized_user) through Sluice', () => {
  test('the refresh-token grant Sluice posts is the one google-auth-library posts, and Vertex answers', async () => {
    const reply = await stack.anthropic().messages.create({ model: 'claude-sonnet-4-5-vertex', max_tokens: 64, messages: hi });
    assert.equal(reply.content[0].text, mockText('claude-sonnet-4-5@20250929'));
    const grant = (await stack.mockRequests()).filter((r) => r.path === '/token').at(-1);
    assert.ok(grant, 'Sluice asked the file’s token_uri');
    const ours = new URLSearchParams(grant.body);

    const sent = [];
    await new UserRefreshClient({
      clientId: USER.client_id, clientSecret: USER.client_secret, refreshToken: USER.refresh_token,
      transporter: capturingTransporter(sent),
    }).getAccessToken();
    const [captured] = sent;
    const theirs = new URLSearchParams(String(captured.data));
    assert.equal(grant.method, captured.method);
    const sorted = (params) => [...params.entries()].sort(([a], [b]) => a.localeCompare(b));
    assert.deepEqual(sorted(ours), sorted(theirs));
    assert.equal(grant.headers['content-type'], 'application/x-www-form-urlencoded');
  });
});

describe('a refresh token the token endpoint refuses', () => {
  let revoked;
  before(async () => {
    revoked = await startStack({
      mockArgs: ['--gcp-authorized-user', path.join(dir, 'mock-user.json')],
      gatewayEnv: (mockUrl) => {
        fs.writeFileSync(path.join(dir, 'revoked.json'),
          JSON.stringify({ ...USER, refresh_token: 'revoked', token_uri: `${mockUrl}/token` }));
        return { GOOGLE_APPLICATION_CREDENTIALS: path.join(dir, 'revoked.json'), VERTEX_BASE_URL: mockUrl };
      },
    });
  });
  after(async () => {
    await revoked?.stop();
  });

  test('fails the Vertex attempt over to the next deployment, and no secret reaches the client', async () => {
    const { data, response } = await revoked.anthropic()
      .messages.create({ model: 'claude-sonnet-4-5-vertex', max_tokens: 64, messages: hi })
      .withResponse();
    assert.equal(data.content[0].text, mockText('claude-sonnet-4-5'));  // anthropic/api, the next deployment
    const text = JSON.stringify(data) + JSON.stringify([...response.headers]);
    for (const secret of [USER.client_secret, 'revoked', USER.refresh_token]) assert.ok(!text.includes(secret));
  });
});
