// SigV4 as AWS's own signer (@smithy/signature-v4) computes it, for the cases Sluice's unit tests
// pin (tests/server/upstream/sigv4_test.cc): the suite's vectors, and a Bedrock InvokeModel whose
// model id has a ':' (sent as %3A, signed as %253A). The same constants are asserted on both
// sides, so the C++ signer and AWS's agree byte for byte.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { signer } from './lib/aws.mjs';

const SUITE = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', region: 'us-east-1' };
const DATE = new Date('2015-08-30T12:36:00Z');

function signatureOf(authorization) {
  return /Signature=([0-9a-f]{64})/.exec(authorization)[1];
}

async function sign(creds, request) {
  const signed = await signer(creds).sign({ protocol: 'https:', query: {}, headers: {}, ...request }, { signingDate: DATE });
  return signed.headers;
}

describe('SigV4 by AWS’s signer agrees with the published suite and with Sluice', () => {
  test('get-vanilla', async () => {
    const headers = await sign({ ...SUITE, service: 'service' }, {
      method: 'GET', hostname: 'example.amazonaws.com', path: '/', headers: { host: 'example.amazonaws.com' },
    });
    assert.equal(signatureOf(headers.authorization), '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
  });

  test('post-x-www-form-urlencoded', async () => {
    const headers = await sign({ ...SUITE, service: 'service' }, {
      method: 'POST', hostname: 'example.amazonaws.com', path: '/',
      headers: { host: 'example.amazonaws.com', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Param1=value1',
    });
    assert.equal(signatureOf(headers.authorization), 'ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a');
  });

  test('post-sts-header-before', async () => {
    const sessionToken = 'AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==';
    const headers = await sign({ ...SUITE, sessionToken, service: 'service' }, {
      method: 'POST', hostname: 'example.amazonaws.com', path: '/', headers: { host: 'example.amazonaws.com' },
    });
    assert.equal(signatureOf(headers.authorization), '85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead');
    assert.equal(headers['x-amz-security-token'], sessionToken);
  });

  test('a Bedrock model id with a colon is encoded again in the canonical URI', async () => {
    const host = 'bedrock-runtime.us-east-1.amazonaws.com';
    const body = '{"anthropic_version":"bedrock-2023-05-31","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}';
    const headers = await sign({ ...SUITE }, {
      method: 'POST', hostname: host,
      path: `/model/${encodeURIComponent('us.anthropic.claude-sonnet-4-5-20250929-v1:0')}/invoke`,
      headers: { host, 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    assert.match(headers.authorization, /SignedHeaders=accept;content-type;host;x-amz-date,/);
    assert.equal(signatureOf(headers.authorization), BEDROCK_COLON_SIGNATURE);
  });
});

// Asserted identically by sigv4_test.cc (bedrock_invoke_signature_matches_aws_signer).
const BEDROCK_COLON_SIGNATURE = 'b071ff8ef787562f65701016937b3e85dd7545764b9f356d30c7a9fc81584dd3';
