import { describe, expect, it } from 'vitest';
import { conflictMessage } from './conflicts';

describe('the message of a 409', () => {
  it('is the server’s when it names the referencing column already', () => {
    const message = 'The record is still referenced from posts.author_id: delete or change those records first';
    expect(conflictMessage(message, { constraint: 'reference', column: 'posts.author_id' })).toBe(message);
  });

  it('adds the referencing column when the message does not name it', () => {
    expect(conflictMessage('The record is still referenced by another record', { constraint: 'reference', column: 'posts' })).toBe(
      'The record is still referenced by another record (referenced from posts).',
    );
  });

  it('leaves unique conflicts and errors without details as they are', () => {
    expect(conflictMessage('A record with this email already exists', { constraint: 'unique', column: 'people.email' })).toBe('A record with this email already exists');
    expect(conflictMessage('Conflict', undefined)).toBe('Conflict');
    expect(conflictMessage('Conflict', { constraint: 'reference' })).toBe('Conflict');
  });
});
