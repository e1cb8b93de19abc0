import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '@basalt/client';
import { errorOfAnswer } from './request';

// No browser here to read the console's origin from.
vi.mock('./apiUrl', () => ({ API_URL: 'http://api.test' }));

describe('requests outside the client library', () => {
  it('fail with the envelope’s code, message, details, request id and wait', () => {
    const error = errorOfAnswer(429, { error: { code: 'RATE_LIMITED', message: 'Too many mails', details: { limit: 5 } } }, 'req-1', '120');
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', message: 'Too many mails', details: { limit: 5 }, requestId: 'req-1', retryAfter: 120 });
  });

  it('fail with the code the status means when the answer is not the envelope (a proxy’s page)', () => {
    expect(errorOfAnswer(502, undefined)).toMatchObject({ code: 'UNAVAILABLE', message: 'Unexpected response from the server (HTTP 502)' });
    expect(errorOfAnswer(500, '<html>')).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(errorOfAnswer(401, 'nope')).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(errorOfAnswer(404, { error: 'not found' })).toMatchObject({ code: 'NOT_FOUND', retryAfter: undefined });
  });
});
