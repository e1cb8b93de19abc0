import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { isApiError } from '@basalt/client';
import { MAX_BULK_RECORDS, type TableInfo } from '@basalt/contract';
import { client } from '../../../api';
import { Field } from '../../../components/Field';
import { FormError } from '../../../components/States';
import { describeError } from '../../../errors';
import { PREVIEW_ROWS, previewCsv } from './csvPreview';
import { whereInFile } from './whereInFile';

interface ImportPanelProps {
  table: TableInfo;
  onImported: () => void;
  onClose: () => void;
}

interface ChosenFile {
  name: string;
  text: string;
}

/** The server's refusal, with the line and column of the file it is about. */
function importErrorText(error: unknown): string {
  const where = isApiError(error) ? whereInFile(error.details) : undefined;
  return where ? `${where}: ${describeError(error)}` : describeError(error);
}

/**
 * A CSV file as new records: the header's columns against the table's and the first records, read in the browser;
 * then the file as it is, one bulk insert (all or nothing), the server naming the line of a record it refuses.
 */
export function ImportPanel({ table, onImported, onClose }: ImportPanelProps) {
  const [file, setFile] = useState<ChosenFile | null>(null);
  const [readProblem, setReadProblem] = useState<string | undefined>();
  const [imported, setImported] = useState<{ name: string; count: number } | null>(null);
  // A new input after an import: choosing the same file again must read it again.
  const [inputKey, setInputKey] = useState(0);
  const send = useMutation({
    mutationFn: (chosen: ChosenFile) => client.admin.from(table.name).importCsv(chosen.text),
    onSuccess: (rows, chosen) => {
      setImported({ name: chosen.name, count: rows.length });
      setFile(null);
      setInputKey((key) => key + 1);
      onImported();
    },
  });
  const preview = file ? previewCsv(file.text, table.columns) : null;
  const unknown = preview?.header.filter((column) => !column.known).map((column) => column.name) ?? [];

  const choose = async (chosen: File | undefined) => {
    send.reset();
    setImported(null);
    setReadProblem(undefined);
    setFile(null);
    if (!chosen) return;
    try {
      setFile({ name: chosen.name, text: await chosen.text() });
    } catch (error) {
      setReadProblem(`${chosen.name} could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  return (
    <section className="card form records-import" aria-labelledby="import-title">
      <h3 id="import-title">Import CSV into {table.name}</h3>
      <Field
        label="CSV file"
        error={readProblem}
        hint={`A header row of column names, then up to ${MAX_BULK_RECORDS.toLocaleString('en')} records. An empty cell takes the column's default; "" is an empty text.`}
      >
        {(control) => <input {...control} key={inputKey} type="file" accept=".csv,text/csv" onChange={(event) => void choose(event.target.files?.[0])} />}
      </Field>

      {imported && (
        <p className="notice" role="status">
          Imported {imported.count} {imported.count === 1 ? 'record' : 'records'} from {imported.name}.
        </p>
      )}

      {file && preview && (
        <>
          {preview.header.length > 0 && (
            <div className="table-scroll">
              <table className="data-table import-preview" aria-label={`Preview of ${file.name}`}>
                <thead>
                  <tr>
                    {preview.header.map((column, index) => (
                      <th key={index} scope="col" className={column.known ? undefined : 'column-unknown'}>
                        {column.name || '(no name)'}
                        {!column.known && <span className="column-type">unknown column</span>}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {preview.rows.map((row, rowIndex) => (
                    <tr key={rowIndex}>
                      {preview.header.map((_, index) => (
                        <td key={index} className="cell">
                          {row[index] ?? ''}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <p className="field-hint">
            {preview.records === 0
              ? `${file.name} has no records under its header.`
              : `${preview.records} ${preview.records === 1 ? 'record' : 'records'} in ${file.name}${preview.records > PREVIEW_ROWS ? `, the first ${PREVIEW_ROWS} shown` : ''}.`}
          </p>
          {unknown.length > 0 && (
            <p className="notice notice-warning">
              {table.name} has no column {unknown.join(', ')}: the server refuses the file until the header names only columns of the table.
            </p>
          )}
          {preview.missing.length > 0 && (
            <p className="notice notice-warning">Required {preview.missing.length === 1 ? 'column' : 'columns'} missing from the header: {preview.missing.join(', ')}.</p>
          )}
          {preview.problem && <p className="notice notice-warning">The browser cannot read all of this file as CSV ({preview.problem}); importing it lets the server name the line.</p>}
        </>
      )}

      <FormError message={send.isError ? importErrorText(send.error) : undefined} />
      <div className="actions">
        <button type="button" className="button" onClick={onClose} disabled={send.isPending}>
          Close
        </button>
        <button type="button" className="button button-primary" disabled={!file || send.isPending} onClick={() => file && send.mutate(file)}>
          {send.isPending ? 'Importing…' : preview && preview.records > 0 && !preview.problem ? `Import ${preview.records} ${preview.records === 1 ? 'record' : 'records'}` : 'Import'}
        </button>
      </div>
    </section>
  );
}
