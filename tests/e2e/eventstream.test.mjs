// The AWS event-stream framing as AWS's own codec (@smithy/eventstream-codec) writes and reads
// it, for the Bedrock `chunk` event Sluice's codec pins byte for byte
// (tests/server/wire/bedrock/event_stream_test.cc, encodes_a_bedrock_chunk_as_aws_codec_does).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { decodeFrames, eventStreamCodec } from './lib/aws.mjs';

const CHUNK_HEX =
  '000000870000004b87ea2bf30b3a6576656e742d747970650700056368756e6b0d3a636f6e74656e742d747970650700106170706c69' +
  '636174696f6e2f6a736f6e0d3a6d6573736167652d747970650700056576656e747b226279746573223a2265794a306558426c496a6f' +
  '696257567a6332466e5a56397a64473977496e303d227dba48ab22';

test('AWS’s codec writes the Bedrock chunk frame Sluice pins', () => {
  const payload = JSON.stringify({ bytes: Buffer.from('{"type":"message_stop"}').toString('base64') });
  const bytes = eventStreamCodec.encode({
    headers: {
      ':event-type': { type: 'string', value: 'chunk' },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: new Uint8Array(Buffer.from(payload)),
  });
  assert.equal(Buffer.from(bytes).toString('hex'), CHUNK_HEX);
});

test('AWS’s codec reads the frames and refuses one with a bad CRC', () => {
  const frame = new Uint8Array(Buffer.from(CHUNK_HEX + CHUNK_HEX, 'hex'));
  const messages = decodeFrames(frame);
  assert.equal(messages.length, 2);
  assert.equal(messages[1].headers[':event-type'].value, 'chunk');
  const event = JSON.parse(Buffer.from(JSON.parse(Buffer.from(messages[0].body).toString()).bytes, 'base64'));
  assert.deepEqual(event, { type: 'message_stop' });
  const bad = new Uint8Array(Buffer.from(CHUNK_HEX, 'hex'));
  bad[40] ^= 1;
  assert.throws(() => decodeFrames(bad));
});
