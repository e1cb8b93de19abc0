import { lazy, useMemo } from 'react';
import { API_URL } from '../../api';
import { LazyPart } from '../../components/LazyPart';
import { ListState } from '../../components/ListState';
import { downloadText } from '../../download';
import { useOpenApi } from '../../queries';
import { withAbsoluteServers } from './servers';
import './reference.css';

const OpenApiViewer = lazy(() => import('./OpenApiViewer'));

const FILE_NAME = 'openapi.json';

/** The project's own OpenAPI 3.1 document, as the owner sees it (every table, /admin included), rendered. */
export function ReferenceScreen() {
  const openapi = useOpenApi();
  const document = useMemo(() => (openapi.data ? withAbsoluteServers(openapi.data, API_URL) : undefined), [openapi.data]);
  return (
    <section className="page">
      <div className="page-header">
        <h1>API reference</h1>
        {openapi.data && (
          <button type="button" className="button button-small" onClick={() => downloadText(JSON.stringify(openapi.data, null, 2), FILE_NAME, 'application/json')}>
            Download {FILE_NAME}
          </button>
        )}
      </div>
      <p className="muted page-intro">
        Generated from the tables and policies as they are now, and served at <code>{API_URL}/openapi.json</code> for code
        generators and API tools. A member, an API key or the anon key get a document of only what they may use; this one is
        the owner&rsquo;s. To try a call, choose <em>Authorize</em> and paste an access token or an API key.
      </p>
      <ListState query={openapi} pendingLabel="Loading the API reference…">
        {() => (
          <div className="card card-flush reference-card">
            <LazyPart label="Loading the reference viewer…">
              <OpenApiViewer document={document!} />
            </LazyPart>
          </div>
        )}
      </ListState>
    </section>
  );
}
