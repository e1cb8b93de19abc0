import { AGGREGATE_FUNCTIONS, MAX_EMBED_DEPTH, SELECT_ALIAS, type AggregateFunction } from '@basalt/contract';
import { invalidParameter } from '../../errors.js';

/**
 * `select`: columns, `*`, and embedded related rows, `id,title,author(id,name),comments(body)`, nested to depth 3;
 * `<table>.<column>(...)` names the referencing column when a to-many embed is ambiguous. Parsed without the
 * schema: the plan resolves names to columns and relations.
 */

export type SelectItem =
  | { kind: 'star' }
  | { kind: 'column'; name: string; alias?: string }
  | { kind: 'embed'; name: string; column: string | null; items: SelectItem[] }
  /** `count()`, `sum(score)`, ... (query/aggregate.ts): top level only. */
  | { kind: 'aggregate'; fn: AggregateFunction; column: string | null; alias?: string };

const isAggregate = (word: string): word is AggregateFunction => (AGGREGATE_FUNCTIONS as readonly string[]).includes(word);

/** `alias:rest`: the alias when the word has one (a plain name before the first colon). */
function splitAlias(word: string): { alias?: string; rest: string } {
  const colon = word.indexOf(':');
  if (colon < 0) return { rest: word };
  const alias = word.slice(0, colon);
  if (!SELECT_ALIAS.test(alias)) throw refused(`has an invalid alias "${alias}": a letter or _, then letters, digits or _`);
  return { alias, rest: word.slice(colon + 1) };
}

const NAME = /^[^,().\s]+$/;

const refused = (why: string) => invalidParameter('select', `select ${why}`);

/** Parses a select list; null for every column (`*` alone, or no select). */
export function parseSelectList(text: string): SelectItem[] {
  let at = 0;
  const items = (depth: number): SelectItem[] => {
    const list: SelectItem[] = [];
    for (;;) {
      const start = at;
      while (at < text.length && !',()'.includes(text[at]!)) at++;
      const { alias, rest: word } = splitAlias(text.slice(start, at));
      if (text[at] === '(' && isAggregate(word)) {
        if (depth > 0) throw refused(`cannot use ${word}() inside an embed`);
        const close = text.indexOf(')', at);
        const inner = close < 0 ? '' : text.slice(at + 1, close);
        if (close < 0 || /[,(]/.test(inner)) throw refused(`${word}(...) takes one column (count() none)`);
        if (word === 'count' ? inner !== '' : !NAME.test(inner)) throw refused(word === 'count' ? 'count() counts rows: it takes no column' : `${word}(...) takes one column name`);
        at = close + 1;
        list.push({ kind: 'aggregate', fn: word, column: word === 'count' ? null : inner, ...(alias !== undefined ? { alias } : {}) });
      } else if (text[at] === '(') {
        if (alias !== undefined) throw refused(`cannot alias the embed "${word}": its key is its name`);
        if (depth >= MAX_EMBED_DEPTH) throw refused(`embeds at most ${MAX_EMBED_DEPTH} levels deep`);
        const dot = word.indexOf('.');
        const name = dot < 0 ? word : word.slice(0, dot);
        const column = dot < 0 ? null : word.slice(dot + 1);
        if (!NAME.test(name) || (column !== null && !NAME.test(column))) throw refused(`has an invalid embed name "${word}"`);
        at++;
        const inner = items(depth + 1);
        if (text[at] !== ')') throw refused('has an unclosed parenthesis');
        at++;
        list.push({ kind: 'embed', name, column, items: inner });
      } else if (word === '*' && alias === undefined) {
        list.push({ kind: 'star' });
      } else if (NAME.test(word)) {
        list.push({ kind: 'column', name: word, ...(alias !== undefined ? { alias } : {}) });
      } else {
        throw refused(`must be *, column names, aggregates and embeds, comma-separated; got "${text.slice(start, at)}"`);
      }
      if (text[at] !== ',') return list;
      at++;
    }
  };
  const parsed = items(0);
  if (at !== text.length) throw refused('has an unmatched parenthesis');
  return parsed;
}

/** `<embed path>.order` and `<embed path>.limit` parameters: options of to-many embeds. */
export const EMBED_OPTION = /^(.+)\.(order|limit)$/;


