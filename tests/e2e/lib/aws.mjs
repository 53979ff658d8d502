// AWS's own signer and event-stream codec (npm @smithy/signature-v4, @smithy/eventstream-codec),
// wired to node:crypto, for the Bedrock tests: they recompute signatures and decode frames with
// AWS's code, never with Sluice's.
import crypto from 'node:crypto';

import { EventStreamCodec } from '@smithy/eventstream-codec';
import { SignatureV4 } from '@smithy/signature-v4';

// The hash class the smithy signer wants (HMAC when given a secret).
export class Sha256 {
  constructor(secret) {
    this.hash = secret === undefined ? crypto.createHash('sha256') : crypto.createHmac('sha256', Buffer.from(secret));
  }
  update(data) {
    this.hash.update(typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

const toUtf8 = (bytes) => Buffer.from(bytes).toString('utf8');
const fromUtf8 = (text) => new Uint8Array(Buffer.from(text, 'utf8'));
export const eventStreamCodec = new EventStreamCodec(toUtf8, fromUtf8);

export function signer({ accessKeyId, secretAccessKey, sessionToken, region, service = 'bedrock' }) {
  return new SignatureV4({
    credentials: { accessKeyId, secretAccessKey, sessionToken },
    region,
    service,
    sha256: Sha256,
    applyChecksum: false,
  });
}

// Splits a byte stream into frames by their prelude length and decodes each with AWS's codec
// (which checks both CRCs and throws on a bad one).
export function decodeFrames(bytes) {
  const out = [];
  let at = 0;
  while (at < bytes.length) {
    const total = Buffer.from(bytes.buffer, bytes.byteOffset + at, 4).readUInt32BE(0);
    out.push(eventStreamCodec.decode(bytes.subarray(at, at + total)));
    at += total;
  }
  return out;
}
