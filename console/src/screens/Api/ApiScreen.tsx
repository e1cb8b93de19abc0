import { useState } from 'react';
import { API_URL } from '../../api';
import { CopyButton } from '../../components/CopyButton';
import { ListState } from '../../components/ListState';
import { ErrorState } from '../../components/States';
import { useAdminSettings, useTables } from '../../queries';
import { clientSnippet, curlSnippet, exampleBody } from './snippets';
import { EmailPanel } from './EmailPanel';
import { ProvidersPanel } from './ProvidersPanel';
import { TypesPanel } from './TypesPanel';
import './api.css';

export function ApiScreen() {
  const settings = useAdminSettings();
  return (
    <section className="page">
      <div className="page-header">
        <h1>API</h1>
      </div>
      <section className="card" aria-labelledby="connection-title">
        <h2 id="connection-title">Connection</h2>
        <dl className="key-values">
          <dt>Base URL</dt>
          <dd className="copy-line">
            <code data-testid="api-url">{API_URL}</code>
            <CopyButton text={API_URL} label="Copy URL" />
          </dd>
          <dt>Anon key</dt>
          <dd>
            <ListState query={settings} pendingLabel="Loading the anon key…">
              {({ anonKey }) => (
                <div className="copy-line">
                  <code className="secret" data-testid="anon-key">
                    {anonKey}
                  </code>
                  <CopyButton text={anonKey} label="Copy anon key" />
                </div>
              )}
            </ListState>
            <p className="field-hint">
              Safe to ship in an app: it acts as an anonymous caller and reads only <code>public-read</code> tables. Send it as
              the <code>apikey</code> header.
            </p>
          </dd>
          {settings.data && (
            <>
              <dt>Sign-up</dt>
              <dd>{settings.data.signupEnabled ? 'open (signupEnabled: true)' : 'closed (signupEnabled: false in config.json)'}</dd>
            </>
          )}
        </dl>
      </section>
      <EmailPanel />
      <ProvidersPanel />
      <Snippets anonKey={settings.data?.anonKey ?? '<anon key>'} />
      <TypesPanel />
    </section>
  );
}

function Snippets({ anonKey }: { anonKey: string }) {
  const tables = useTables();
  const [chosen, setChosen] = useState('');
  const names = tables.data?.map((table) => table.name) ?? [];
  // The first table until the owner picks one; a placeholder on a project without tables.
  const table = names.includes(chosen) ? chosen : (names[0] ?? 'todos');
  const body = exampleBody(tables.data?.find((info) => info.name === table));
  const curl = curlSnippet(API_URL, anonKey, table, body);
  const code = clientSnippet(API_URL, anonKey, table, body);

  return (
    <section className="card" aria-labelledby="snippets-title">
      <div className="card-header">
        <h2 id="snippets-title">Examples</h2>
        {names.length > 0 && (
          <label className="inline-field">
            Table
            <select value={table} onChange={(event) => setChosen(event.target.value)}>
              {names.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {tables.isError && <ErrorState error={tables.error} onRetry={() => void tables.refetch()} />}
      <div className="snippet">
        <div className="snippet-header">
          <h3>curl</h3>
          <CopyButton text={curl} label="Copy curl" />
        </div>
        <pre>
          <code>{curl}</code>
        </pre>
      </div>
      <div className="snippet">
        <div className="snippet-header">
          <h3>TypeScript client</h3>
          <CopyButton text={code} label="Copy client code" />
        </div>
        <pre>
          <code>{code}</code>
        </pre>
      </div>
    </section>
  );
}
