import type { ReactNode } from 'react';
import type { AuthUser } from '@basalt/client';
import { signOut } from '../auth/session';
import { API_URL } from '../api';
import { Link, type Route } from '../router';

const SECTIONS = [
  { to: '', label: 'Tables', screens: ['tables', 'table'] },
  { to: 'users', label: 'Users', screens: ['users'] },
  { to: 'outbox', label: 'Outbox', screens: ['outbox'] },
  { to: 'webhooks', label: 'Webhooks', screens: ['webhooks', 'webhook'] },
  { to: 'overview', label: 'Overview', screens: ['overview'] },
  { to: 'api', label: 'API', screens: ['api'] },
  { to: 'api/reference', label: 'API reference', screens: ['reference'] },
  { to: 'keys', label: 'API keys', screens: ['keys'] },
  { to: 'account', label: 'Account', screens: ['account'] },
] as const;

export function Layout({ user, route, children }: { user: AuthUser; route: Route; children: ReactNode }) {
  return (
    <div className="shell">
      <header className="topbar">
        <Link to="" className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Basalt
        </Link>
        <nav className="nav" aria-label="Sections">
          {SECTIONS.map((section) => {
            const current = (section.screens as readonly string[]).includes(route.screen);
            return (
              <Link key={section.label} to={section.to} className="nav-link" aria-current={current ? 'page' : undefined}>
                {section.label}
              </Link>
            );
          })}
        </nav>
        <div className="account">
          <span className="account-email" title={`Signed in to ${API_URL}`}>
            {user.email}
          </span>
          <button type="button" className="button button-small" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main className="content">{children}</main>
    </div>
  );
}
