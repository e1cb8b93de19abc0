import type { AdminUser } from '@basalt/contract';

/** How an account signs in: its password, its linked identity providers, and the second factor ("2FA") on top. */
export function SignInMethods({ user }: { user: Pick<AdminUser, 'hasPassword' | 'mfa' | 'identities'> }) {
  if (!user.hasPassword && !user.mfa && user.identities.length === 0) return <span className="muted">none yet</span>;
  return (
    <span className="sign-in-methods">
      {user.hasPassword && <span className="muted">password</span>}
      {user.identities.map((identity) => (
        <span key={identity.provider} className="badge badge-identity" title={identity.email ? `${identity.provider}: ${identity.email}` : identity.provider}>
          {identity.provider}
        </span>
      ))}
      {user.mfa && (
        <span className="badge badge-mfa" title="Two-step sign-in is on">
          2FA
        </span>
      )}
    </span>
  );
}
