import { describe, expect, it } from 'vitest';
import { ApiError } from '@basalt/client';
import { presetRules, type ColumnInfo } from '@basalt/contract';
import { checkInputOf } from './checkInput';
import { expressionSchemaOf } from './expressionSchema';
import { draftsOf, markPosition, ruleProblem, ruleProblems, rulesToSend, sameRules, serverRuleProblem } from './ruleText';

/** What the rule editor shows and sends: problems where they are, empty members absent, the server's refusals mapped. */

const column = (name: string, type: ColumnInfo['type'] = 'text'): ColumnInfo => ({
  name,
  type,
  nullable: true,
  unique: false,
  primaryKey: name === 'id',
  default: null,
  readOnly: false,
});
const schema = expressionSchemaOf([{ name: 'posts', columns: [column('id', 'integer'), column('user_id'), column('published', 'boolean')] }]);

describe('drafts and what is sent', () => {
  it('starts from a preset’s exact expansion, every member filled', () => {
    expect(draftsOf(presetRules('owner-scoped', 'user_id'))).toEqual({
      read: 'user_id = @auth.id',
      create: 'user_id = @auth.id',
      update: 'user_id = @auth.id',
      updateCheck: 'user_id = @auth.id',
      delete: 'user_id = @auth.id',
    });
    expect(draftsOf({ read: 'true' })).toEqual({ read: 'true', create: '', update: '', updateCheck: '', delete: '' });
  });

  it('sends an empty or blank member as absent, and the others as typed', () => {
    const drafts = { read: ' published = true ', create: '', update: '  \n', updateCheck: '', delete: 'user_id = @auth.id' };
    expect(rulesToSend(drafts)).toEqual({ read: ' published = true ', delete: 'user_id = @auth.id' });
  });

  it('compares sets member by member, an empty member as an absent one', () => {
    expect(sameRules({ read: 'true', create: '' }, { read: 'true' })).toBe(true);
    expect(sameRules({ read: 'true' }, { read: 'true', delete: 'false' })).toBe(false);
  });
});

describe('problems as the owner types', () => {
  it('has none for an empty rule or a valid one', () => {
    expect(ruleProblem('', schema, 'posts')).toBeUndefined();
    expect(ruleProblem('published = true or user_id = @auth.id', schema, 'posts')).toBeUndefined();
  });

  it('names a syntax error, an unknown name and a type mismatch with their positions', () => {
    expect(ruleProblem('published = ', schema, 'posts')).toEqual({ message: expect.any(String), position: 12 });
    expect(ruleProblem('publisher = true', schema, 'posts')).toEqual({ message: expect.stringContaining('no column publisher'), position: 0 });
    expect(ruleProblem('published = 3', schema, 'posts')?.position).toBe(12);
  });

  it('checks the syntax alone while there is no schema yet', () => {
    expect(ruleProblem('publisher = true', undefined, 'posts')).toBeUndefined();
    expect(ruleProblem('publisher = = true', undefined, 'posts')?.position).toBe(12);
  });

  it('lists the members that have one', () => {
    const problems = ruleProblems({ read: 'true', create: 'nope = 1', update: '', updateCheck: '(', delete: '' }, schema, 'posts');
    expect(Object.keys(problems)).toEqual(['create', 'updateCheck']);
  });
});

describe('a refusal by the server', () => {
  const refusal = (field: string, message: string, position?: number) =>
    new ApiError(400, 'VALIDATION_ERROR', message, position === undefined ? { field } : { field, position });

  it('goes to the member it names, without the prefix and the position the mark shows', () => {
    expect(serverRuleProblem(refusal('rules.read', 'rules.read: posts has no column x at 4', 4))).toEqual({
      member: 'read',
      problem: { message: 'posts has no column x', position: 4 },
    });
    expect(serverRuleProblem(refusal('rules.updateCheck', 'too long'))).toEqual({ member: 'updateCheck', problem: { message: 'too long', position: undefined } });
  });

  it('is about the whole form when it names no member', () => {
    expect(serverRuleProblem(refusal('rules', 'rules must be an object'))).toBeUndefined();
    expect(serverRuleProblem(refusal('rules.write', 'rules.write is not an operation'))).toBeUndefined();
    expect(serverRuleProblem(new ApiError(403, 'FORBIDDEN', 'no'))).toBeUndefined();
    expect(serverRuleProblem(new Error('network'))).toBeUndefined();
  });
});

describe('the mark at a position', () => {
  it('marks the character there in its line, with the line and column', () => {
    expect(markPosition('published = 3', 12)).toEqual({ line: 1, column: 13, before: 'published = ', at: '3', after: '' });
  });

  it('marks the end when the problem is that the text ends', () => {
    expect(markPosition('published =', 11)).toEqual({ line: 1, column: 12, before: 'published =', at: '', after: '' });
  });

  it('shows only the line of the position, on a rule written over several', () => {
    expect(markPosition('published = true\nor nope = 1', 20)).toEqual({ line: 2, column: 4, before: 'or ', at: 'n', after: 'ope = 1' });
    expect(markPosition('\nx', 0)).toEqual({ line: 1, column: 1, before: '', at: '', after: '' });
  });

  it('cuts a long line around the position', () => {
    const text = `${'a'.repeat(50)} = ${'b'.repeat(50)}`;
    const mark = markPosition(text, 51);
    expect(mark.at).toBe('=');
    expect(mark.before).toBe(`…${'a'.repeat(31)} `);
    expect(mark.after).toBe(` ${'b'.repeat(31)}…`);
  });

  it('counts UTF-16 units as the parser does, and marks a character outside the BMP whole', () => {
    // '😀' is two code units (x is at 7) and one character (x is the 7th).
    expect(markPosition("'😀' = x", 7)).toMatchObject({ column: 7, at: 'x' });
    expect(markPosition("x = '😀'", 5)).toMatchObject({ at: '😀', after: "'" });
  });
});

describe('the body of a check', () => {
  const form = { as: 'anon', operation: 'read' as const, id: '', record: '' };

  it('needs a row for read, update and delete, its id sent as text whatever its type', () => {
    expect(checkInputOf(form)).toEqual({ ok: false, field: 'id', problem: expect.any(String) });
    expect(checkInputOf({ ...form, id: ' 42 ' })).toEqual({ ok: true, input: { as: 'anon', operation: 'read', id: '42' } });
    expect(checkInputOf({ ...form, id: 'a1' })).toEqual({ ok: true, input: { as: 'anon', operation: 'read', id: 'a1' } });
  });

  it('takes a record as a JSON object for create and update, and ignores it for read and delete', () => {
    expect(checkInputOf({ ...form, operation: 'create', record: '{"title": "x"}' })).toEqual({
      ok: true,
      input: { as: 'anon', operation: 'create', record: { title: 'x' } },
    });
    expect(checkInputOf({ ...form, operation: 'create', id: '1' })).toEqual({ ok: true, input: { as: 'anon', operation: 'create' } });
    expect(checkInputOf({ ...form, operation: 'update', id: '1', record: '[1]' })).toMatchObject({ ok: false, field: 'record' });
    expect(checkInputOf({ ...form, operation: 'update', id: '1', record: '{' })).toMatchObject({ ok: false, field: 'record' });
    expect(checkInputOf({ ...form, operation: 'delete', id: '1', record: '{' })).toEqual({ ok: true, input: { as: 'anon', operation: 'delete', id: '1' } });
  });
});
