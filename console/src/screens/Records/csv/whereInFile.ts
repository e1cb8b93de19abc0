/**
 * Where in a CSV file the server found the problem, from an import error's details (`{ index, line, field }`: the
 * 1-based line where the record starts, the column): "Line 3, column score", or undefined for a problem with the file
 * as a whole (too many records, an empty file).
 */
export function whereInFile(details: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const line = details?.line;
  const field = details?.field;
  const column = typeof field === 'string' && field !== '' ? field : undefined;
  if (typeof line === 'number' && Number.isInteger(line)) return column ? `Line ${line}, column ${column}` : `Line ${line}`;
  return column ? `Column ${column}` : undefined;
}
