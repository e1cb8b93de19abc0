import { CopyButton } from '../../components/CopyButton';
import { ListState } from '../../components/ListState';
import { downloadText } from '../../download';
import { useTypes } from '../../queries';

const FILE_NAME = 'database.ts';

export function TypesPanel() {
  const types = useTypes();
  return (
    <section className="card" aria-labelledby="types-title">
      <div className="card-header">
        <h2 id="types-title">TypeScript types</h2>
        {types.data !== undefined && (
          <div className="toolbar-actions">
            <CopyButton text={types.data} label="Copy types" />
            <button type="button" className="button button-small" onClick={() => downloadText(types.data, FILE_NAME, 'text/typescript')}>
              Download {FILE_NAME}
            </button>
          </div>
        )}
      </div>
      <p className="muted">
        Generated from the tables as they are now. Pass <code>Database</code> to <code>createClient&lt;Database&gt;()</code> and
        every <code>from(table)</code> call is typed. <code>npm run typegen -- --out {FILE_NAME}</code> writes the same file.
      </p>
      <ListState query={types} pendingLabel="Generating types…">
        {(source) => (
          <pre className="types-source" data-testid="types-source">
            <code>{source}</code>
          </pre>
        )}
      </ListState>
    </section>
  );
}
