import { describe, expect, it } from 'vitest';
import { respond } from './respond.js';

describe('respond', () => {
  const row = { id: 'a' };
  it.each([
    ['list', { kind: 'page', rows: [row], total: 7 }, 200, { data: [row], total: 7 }],
    ['get', { kind: 'record', row, created: false }, 200, { data: row }],
    ['create', { kind: 'record', row, created: true }, 201, { data: row }],
    ['upsert', { kind: 'record', row, created: true }, 201, { data: row }],
    ['upsert', { kind: 'record', row, created: false }, 200, { data: row }],
    ['delete', { kind: 'record', row, created: false }, 200, { data: row }],
  ] as const)('%s %o -> %i', (action, outcome, status, body) => {
    expect(respond(action, outcome as Parameters<typeof respond>[1])).toEqual({ status, body });
  });
});
