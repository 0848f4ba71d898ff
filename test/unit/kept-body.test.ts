import { describe, expect, it } from 'vitest';
import { keptBody, type KeptMessage } from '../../functions/inbox/claim/kept-message.js';

const text = (body: string): KeptMessage => ({ source: 'sqs', body, encoding: 'utf8', origin: {} });
const value = (bytes: Buffer): KeptMessage => ({ source: 'kafka', body: bytes.toString('base64'), encoding: 'base64', origin: {} });

describe('a kept body within the bound', () => {
  it('keeps a body within the bound whole', () => {
    expect(keptBody(text('ünï'), 5)).toEqual({ body: 'ünï', bodyBytes: 5, keptBytes: 5 });
  });

  it('cuts text at a whole character, never inside a UTF-8 sequence, and says what it kept', () => {
    expect(keptBody(text('a𝄞b'), 4)).toEqual({ body: 'a', bodyBytes: 6, keptBytes: 1 });
    expect(keptBody(text('éé'), 3)).toEqual({ body: 'é', bodyBytes: 4, keptBytes: 2 });
  });

  it('cuts a Kafka value by its bytes, kept in base64', () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 253]);
    expect(keptBody(value(bytes), 4)).toEqual({ body: bytes.subarray(0, 4).toString('base64'), bodyBytes: 7, keptBytes: 4 });
  });
});
