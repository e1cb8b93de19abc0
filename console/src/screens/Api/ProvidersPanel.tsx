import { API_URL } from '../../api';
import { CopyButton } from '../../components/CopyButton';
import { ListState } from '../../components/ListState';
import { useAdminSettings } from '../../queries';
import { callbackUrl, PROVIDER_CONFIG_EXAMPLE } from './snippets';

/** The identity providers (OpenID Connect) users can sign in with, from `auth.providers` of config.json. */
export function ProvidersPanel() {
  const settings = useAdminSettings();
  return (
    <section className="card" aria-labelledby="providers-title">
      <h2 id="providers-title">Identity providers</h2>
      <ListState query={settings} pendingLabel="Loading the identity providers…">
        {({ providers }) =>
          providers.length > 0 ? (
            <>
              <p className="muted">
                Users can sign in with these (“Continue with …”), and link them to an account. Each provider’s app registration lists its
                redirect URI, under the server’s <code>PUBLIC_URL</code>:
              </p>
              <dl className="key-values" data-testid="providers">
                {providers.map((provider) => (
                  <div key={provider.name} className="provider-entry">
                    <dt>{provider.displayName}</dt>
                    <dd>
                      <span>
                        name <code>{provider.name}</code>
                      </span>
                      <span className="copy-line">
                        <code className="secret">{callbackUrl(API_URL, provider.name)}</code>
                        <CopyButton text={callbackUrl(API_URL, provider.name)} label="Copy redirect URI" />
                      </span>
                    </dd>
                  </div>
                ))}
              </dl>
            </>
          ) : (
            <>
              <p data-testid="providers">
                None configured: users sign in with a password{settings.data?.signupEnabled ? ' or sign up' : ''}. To offer “Continue with Google”
                (or <code>microsoft</code>, <code>gitlab</code>, <code>apple</code>, or any OpenID Connect issuer with <code>issuer</code>), add
                to <code>config.json</code> and restart the server:
              </p>
              <div className="snippet">
                <div className="snippet-header">
                  <h3>config.json</h3>
                  <CopyButton text={PROVIDER_CONFIG_EXAMPLE} label="Copy example" />
                </div>
                <pre>
                  <code>{PROVIDER_CONFIG_EXAMPLE}</code>
                </pre>
              </div>
              <p className="field-hint">
                The secret itself goes in the environment variable <code>clientSecretEnv</code> names, never in the file. Register{' '}
                <code>{callbackUrl(API_URL, 'google')}</code> as the app’s redirect URI.
              </p>
            </>
          )
        }
      </ListState>
    </section>
  );
}
