/** The one function that quotes SQL identifiers (table, column and index names); every value is a bound parameter. */
export function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
