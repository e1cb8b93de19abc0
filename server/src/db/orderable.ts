/**
 * Which column types Postgres can sort by, asked of its catalog at introspection rather than listed here: a list
 * would miss domains, arrays and composites built on json, enums (always sortable, under any name) and types of
 * extensions. The query mirrors the rule of Postgres's type cache (`lookup_type_cache`, TYPECACHE_LT_OPR): a domain
 * sorts as its base type does; a type sorts when it has a default btree operator class, its own or that of a type it
 * is implicitly binary-coercible to; an enum, range or multirange always sorts; an array without a class of its own
 * sorts when its element type does, a composite when all its fields do; a pseudo-type (`anyarray` in a system
 * catalog) never does. server/test/order-types.test.ts holds it to what `ORDER BY` does on every type of the database.
 */

const BTREE = `(SELECT oid FROM pg_am WHERE amname = 'btree')`;

/** A default btree operator class taking exactly the type `t` (no coercion). */
const OWN_CLASS = `EXISTS (SELECT 1 FROM pg_opclass o WHERE o.opcmethod = ${BTREE} AND o.opcdefault AND o.opcintype = t.oid)`;

/** A true array: a varlena with an element type (int2vector and oidvector included; point's fixed "array" not). */
const ARRAY = `(t.typelem <> 0 AND t.typlen = -1)`;

/**
 * `WITH RECURSIVE ... orderable_types(type, orderable)`: for each type `roots` (a query of one oid column) yields,
 * whether `ORDER BY` takes a value of it. The caller appends the statement that reads `orderable_types`.
 */
export function orderableTypesSql(roots: string): string {
  return `
  WITH RECURSIVE
    roots(type) AS (${roots}),
    -- The types whose ordering decides a root's: through domains, and into arrays' elements and composites' fields
    -- unless the array or composite has an operator class of its own.
    reached(root, type) AS (
      SELECT type, type FROM roots
      UNION
      SELECT r.root, part.type
        FROM reached r
        JOIN pg_type t ON t.oid = r.type
        CROSS JOIN LATERAL (
          SELECT t.typbasetype WHERE t.typtype = 'd'
          UNION ALL
          SELECT t.typelem WHERE t.typtype <> 'd' AND ${ARRAY} AND NOT ${OWN_CLASS}
          UNION ALL
          SELECT a.atttypid FROM pg_attribute a
           WHERE t.typtype = 'c' AND NOT ${OWN_CLASS} AND a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped
        ) part(type)
    ),
    orderable_types(type, orderable) AS (
      SELECT r.root,
             bool_and(
               t.typtype <> 'p' AND (
                 t.typtype IN ('d', 'c', 'e', 'r', 'm') OR ${ARRAY} OR ${OWN_CLASS}
                 OR EXISTS (SELECT 1 FROM pg_cast c JOIN pg_opclass o ON o.opcintype = c.casttarget
                             WHERE c.castsource = t.oid AND c.castmethod = 'b' AND c.castcontext = 'i'
                               AND o.opcmethod = ${BTREE} AND o.opcdefault)))
        FROM reached r
        JOIN pg_type t ON t.oid = r.type
       GROUP BY r.root
    )`;
}
