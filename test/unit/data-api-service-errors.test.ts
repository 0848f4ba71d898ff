import { describe, expect, it } from 'vitest';
import { serviceErrorOf } from '../../local/data-api/operations.js';

describe('the Data API emulator\'s answer while its database restarts', () => {
  it.each([
    ['a connect the starting server did not accept in time', new Error('timeout exceeded when trying to connect')],
    ['a connection an earlier failure left unusable', new Error('Client has encountered a connection error and is not queryable')],
    ['a connection the server refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
  ])('is DatabaseUnavailableException (HTTP 504, which the SDK retries) for %s', (_, error) => {
    expect(serviceErrorOf(error)).toMatchObject({ type: 'DatabaseUnavailableException', status: 504 });
  });

  it('is InternalServerErrorException for an error it does not know', () => {
    expect(serviceErrorOf(new Error('something else'))).toMatchObject({ type: 'InternalServerErrorException' });
  });
});
