import { useEffect, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client } from '../../api';
import { forgetProviderReturn, providerErrorText, providerLanding, type ProviderLanding } from '../../auth/providerReturn';
import { useBackFromProvider } from '../../auth/useBackFromProvider';
import { ErrorState, FormError, Loading } from '../../components/States';
import { describeError } from '../../errors';
import { keys, useAuthSettings, useMe } from '../../queries';
import { absoluteHref, hrefOf, Link } from '../../router';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** What a link's round trip left in the address (`?linked=` or `?error=`), read once and then taken out of it. */
function useLinkReturn(): [ProviderLanding | null, () => void] {
  const [landing, setLanding] = useState<ProviderLanding | null>(() => {
    const found = providerLanding(window.location.href, hrefOf('account'));
    return found?.purpose === 'link' ? found : null;
  });
  const arrived = landing !== null;
  useEffect(() => {
    if (arrived) forgetProviderReturn();
  }, [arrived]);
  return [landing, () => setLanding(null)];
}

/** The identity providers linked to the owner's account: each one signs in as well as the password. */
export function IdentitiesSection() {
  const queryClient = useQueryClient();
  const me = useMe();
  const settings = useAuthSettings();
  const [landing, dismiss] = useLinkReturn();
  const link = useMutation({
    // The browser leaves for the provider and comes back to this screen with ?linked= or ?error=.
    mutationFn: (provider: string) => client.auth.linkIdentity(provider, { redirectTo: absoluteHref('account') }),
  });
  useBackFromProvider(link.reset);
  const unlink = useMutation({
    mutationFn: (provider: string) => client.auth.unlinkIdentity(provider),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.me }),
  });

  const providers = settings.data?.providers ?? [];
  const displayName = (name: string) => providers.find((provider) => provider.name === name)?.displayName ?? name;
  const identities = me.data?.identities ?? [];
  const linkable = providers.filter((provider) => !identities.some((identity) => identity.provider === provider.name));
  const leaving = link.isPending || link.isSuccess;

  return (
    <section className="card" aria-labelledby="identities-title">
      <h2 id="identities-title">Identities</h2>
      <p className="muted">Identity providers linked to your account: each one signs you in, as your password does.</p>
      {landing && (
        <div className={`notice${'error' in landing ? ' notice-warning' : ''} identity-return`} role="status">
          <p>{'linked' in landing ? `${displayName(landing.linked)} is linked: you can sign in with it now.` : 'error' in landing ? providerErrorText(landing.error, 'link') : null}</p>
          <button type="button" className="button button-small" onClick={dismiss}>
            Done
          </button>
        </div>
      )}
      {me.isPending ? (
        <Loading label="Loading your identities…" />
      ) : me.isError ? (
        <ErrorState error={me.error} onRetry={() => void me.refetch()} />
      ) : identities.length === 0 ? (
        <p>No identity provider is linked to your account.</p>
      ) : (
        <ul className="identity-list" aria-label="Linked identities">
          {identities.map((identity) => (
            <li key={identity.provider}>
              <div className="identity-name">
                <strong>{displayName(identity.provider)}</strong>
                <span className="muted">
                  {identity.email ?? 'no email'} · linked {dateTime.format(new Date(identity.createdAt))}
                </span>
              </div>
              <button
                type="button"
                className="button button-small button-danger-quiet"
                disabled={unlink.isPending}
                onClick={() => unlink.mutate(identity.provider)}
              >
                Unlink<span className="visually-hidden"> {displayName(identity.provider)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <FormError message={unlink.isError ? describeError(unlink.error) : undefined} />
      {settings.data && providers.length === 0 ? (
        <p className="field-hint">
          No identity providers are configured: the <Link to="api">API screen</Link> shows how to add one in config.json.
        </p>
      ) : (
        linkable.length > 0 && (
          <div className="toolbar-actions">
            {linkable.map((provider) => (
              <button key={provider.name} type="button" className="button" disabled={leaving} onClick={() => link.mutate(provider.name)}>
                {leaving && link.variables === provider.name ? `Opening ${provider.displayName}…` : `Link ${provider.displayName}`}
              </button>
            ))}
          </div>
        )
      )}
      <FormError message={link.isError ? describeError(link.error) : undefined} />
    </section>
  );
}
