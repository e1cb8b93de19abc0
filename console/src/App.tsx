import { restoreSession, useAuth } from './auth/session';
import { SignIn } from './auth/SignIn';
import { Layout } from './components/Layout';
import { Loading } from './components/States';
import { matchRoute, Link, usePath, useSearch, type Route } from './router';
import { ApiScreen } from './screens/Api/ApiScreen';
import { OverviewScreen } from './screens/Overview/OverviewScreen';
import { ReferenceScreen } from './screens/Reference/ReferenceScreen';
import { TableDetailScreen } from './screens/TableDetail/TableDetailScreen';
import { TablesScreen } from './screens/Tables/TablesScreen';
import { UsersScreen } from './screens/Users/UsersScreen';
import { KeysScreen } from './screens/Keys/KeysScreen';
import { AccountScreen } from './screens/Account/AccountScreen';
import { ResetScreen } from './screens/Reset/ResetScreen';
import { OutboxScreen } from './screens/Outbox/OutboxScreen';
import { RecoverScreen } from './screens/Recover/RecoverScreen';
import { WebhooksScreen } from './screens/Webhooks/WebhooksScreen';
import { WebhookScreen } from './screens/Webhooks/WebhookScreen';

function Screen({ route, search }: { route: Route; search: string }) {
  switch (route.screen) {
    case 'tables':
      return <TablesScreen />;
    case 'table':
      // Keyed by name and record: the grid's paging, sorting and filters belong to one table and start fresh on another.
      return <TableDetailScreen key={`${route.name}${search}`} name={route.name} recordId={new URLSearchParams(search).get('id')} />;
    case 'users':
      return <UsersScreen />;
    case 'outbox':
      return <OutboxScreen />;
    case 'webhooks':
      return <WebhooksScreen />;
    case 'webhook':
      // Keyed by id: the status filter and the page belong to one webhook.
      return <WebhookScreen key={route.id} id={route.id} />;
    case 'api':
      return <ApiScreen />;
    case 'reference':
      return <ReferenceScreen />;
    case 'overview':
      return <OverviewScreen />;
    case 'keys':
      return <KeysScreen />;
    case 'account':
      return <AccountScreen />;
    case 'reset':
      return <ResetScreen />;
    case 'recover':
      return <RecoverScreen />;
    case 'not-found':
      return (
        <section className="page">
          <h1>Page not found</h1>
          <p>
            Nothing lives at <code>/console/{route.path}</code>. <Link to="">Back to the tables</Link>.
          </p>
        </section>
      );
  }
}

export function App() {
  const auth = useAuth();
  const route = matchRoute(usePath());
  const search = useSearch();
  // A reset link is for whoever holds it, signed in or not, owner or member; so is asking for a recovery mail.
  if (route.screen === 'reset') return <ResetScreen />;
  if (route.screen === 'recover') return <RecoverScreen />;

  if (auth.status === 'checking') {
    return (
      <div className="auth-page">
        <Loading label="Checking your session…" />
      </div>
    );
  }
  if (auth.status === 'unreachable') {
    return (
      <div className="auth-page">
        <div className="auth-card state state-error" role="alert">
          <p>{auth.message}</p>
          <button type="button" className="button" onClick={() => void restoreSession()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  if (auth.status === 'signed-out') {
    // Keyed by a provider's pending second step, so one arriving while the card shows starts it afresh.
    return <SignIn key={auth.mfaToken ?? 'sign-in'} notice={auth.notice} mfaToken={auth.mfaToken} />;
  }
  return (
    <Layout user={auth.user} route={route}>
      <Screen route={route} search={search} />
    </Layout>
  );
}
