// The standard AWS credential chain, judged with AWS's own providers: the mock provider's STS
// (AssumeRoleWithWebIdentity, AssumeRole), container-credential and IMDSv2 answers are read by
// @aws-sdk/credential-providers pointed at the same endpoints, the mock accepts an AssumeRole the
// SDK signed (and refuses one signed with a wrong secret), and the keys Sluice signs its Bedrock
// calls with (chain: default over the container endpoint, as on ECS or EKS Pod Identity) are the
// very keys the SDK obtains there.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  fromHttp, fromInstanceMetadata, fromTemporaryCredentials, fromTokenFile,
} from '@aws-sdk/credential-providers';

import { mockText, startStack } from './lib/stack.mjs';

const MODEL = 'claude-sonnet-4-5-bedrock';
const MODEL_ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const POD_TOKEN = 'eks-pod-identity-token-e2e';
const REGION = 'us-east-1';

let stack;
before(async () => {
  stack = await startStack({
    mockArgs: ['--aws-container-token', POD_TOKEN],
    // The shipped Bedrock credential becomes `chain: default`, as a deployment on EKS writes it.
    editCatalog: (dir) => {
      const file = path.join(dir, 'ai/credentials.yaml');
      const yaml = fs.readFileSync(file, 'utf8');
      const keys = 'aws: { access_key_id: env:BEDROCK_ACCESS_KEY_ID, secret_access_key: env:BEDROCK_SECRET_ACCESS_KEY }';
      if (!yaml.includes(keys)) throw new Error(`${file}: no Bedrock keys line to replace`);
      fs.writeFileSync(file, yaml.replace(keys, 'aws: { chain: default }'));
    },
    gatewayEnv: (mockUrl) => ({
      AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SESSION_TOKEN: '', AWS_WEB_IDENTITY_TOKEN_FILE: '',
      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '',
      AWS_CONTAINER_CREDENTIALS_FULL_URI: `${mockUrl}/container/credentials`,
      AWS_CONTAINER_AUTHORIZATION_TOKEN: POD_TOKEN,
      AWS_REGION: REGION,
    }),
  });
});
after(async () => {
  await stack?.stop();
});

function lastAuthorization(last) {
  const credential = /Credential=([^/]+)\//.exec(last.headers.authorization ?? '');
  return { accessKeyId: credential?.[1], sessionToken: last.headers['x-amz-security-token'] };
}

describe('the AWS credential chain, checked with AWS’s own credential providers', () => {
  test('Sluice signs Bedrock calls with the container credentials AWS’s fromHttp obtains', async () => {
    const answer = await stack.anthropic().messages.create({
      model: MODEL, max_tokens: 32, messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(answer.content[0].text, mockText(MODEL_ID));
    const signedWith = lastAuthorization(await stack.mockJson('/_mock/last'));

    const sdk = await fromHttp({
      awsContainerCredentialsFullUri: `${stack.mockUrl}/container/credentials`,
      awsContainerAuthorizationToken: POD_TOKEN,
    })();
    assert.match(sdk.accessKeyId, /^ASIA/);
    assert.ok(sdk.expiration instanceof Date && sdk.expiration > new Date());
    assert.equal(signedWith.accessKeyId, sdk.accessKeyId);
    assert.equal(signedWith.sessionToken, sdk.sessionToken);
    // One fetch by Sluice, one by the SDK: the keys were kept, not fetched per call.
    const served = (await stack.mockJson('/_mock/aws')).served;
    assert.equal(served.container, 2);
    await assert.rejects(fromHttp({
      awsContainerCredentialsFullUri: `${stack.mockUrl}/container/credentials`,
      awsContainerAuthorizationToken: 'wrong-token',
    })());
  });

  test('the mock’s AssumeRoleWithWebIdentity answer is read by fromTokenFile', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-e2e-irsa-'));
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, 'eyJhbGciOiJSUzI1NiJ9.e2e.irsa');
    try {
      const keys = await fromTokenFile({
        webIdentityTokenFile: tokenFile,
        roleArn: 'arn:aws:iam::123456789012:role/irsa',
        roleSessionName: 'sluice-e2e',
        clientConfig: { region: REGION, endpoint: `${stack.mockUrl}/sts` },
      })();
      assert.match(keys.accessKeyId, /^ASIA/);
      assert.match(keys.sessionToken, /^mock-session-/);
      assert.ok(keys.expiration > new Date());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the mock’s IMDSv2 answers are read by fromInstanceMetadata', async () => {
    const saved = process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT;
    process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT = stack.mockUrl;
    try {
      const keys = await fromInstanceMetadata({ timeout: 2000, maxRetries: 0 })();
      assert.match(keys.accessKeyId, /^ASIA/);
      assert.ok(keys.expiration > new Date());
    } finally {
      if (saved === undefined) delete process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT;
      else process.env.AWS_EC2_METADATA_SERVICE_ENDPOINT = saved;
    }
  });

  test('an AssumeRole signed by AWS’s SDK is accepted by the mock, and one with a wrong secret refused', async () => {
    const base = await fromHttp({
      awsContainerCredentialsFullUri: `${stack.mockUrl}/container/credentials`,
      awsContainerAuthorizationToken: POD_TOKEN,
    })();
    const assume = (masterCredentials) => fromTemporaryCredentials({
      masterCredentials,
      params: { RoleArn: 'arn:aws:iam::123456789012:role/sluice', RoleSessionName: 'sluice-e2e' },
      clientConfig: { region: REGION, endpoint: `${stack.mockUrl}/sts` },
    })();
    const assumed = await assume(base);
    assert.match(assumed.accessKeyId, /^ASIA/);
    assert.notEqual(assumed.accessKeyId, base.accessKeyId);
    await assert.rejects(assume({ ...base, secretAccessKey: 'not-the-secret' }), (err) => {
      assert.equal(err.name, 'SignatureDoesNotMatch');
      return true;
    });
  });
});
