import { MAX_EMBED_DEPTH } from '@basalt/contract';
import { invalidParameter } from '../../errors.js';

/**
 * `select`: columns, `*`, and embedded related rows, `id,title,author(id,name),comments(body)`, nested to depth 3;
 * `<table>.<column>(...)` names the referencing column when a to-many embed is ambiguous. Parsed without the
 * schema: the plan resolves names to columns and relations.
 */

export type SelectItem = { kind: 'star' } | { kind: 'column'; name: string } | { kind: 'embed'; name: string; column: string | null; items: SelectItem[] };

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
      const word = text.slice(start, at);
      if (text[at] === '(') {
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
      } else if (word === '*') {
        list.push({ kind: 'star' });
      } else if (NAME.test(word)) {
        list.push({ kind: 'column', name: word });
      } else {
        throw refused(`must be *, column names and embeds, comma-separated; got "${word}"`);
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


