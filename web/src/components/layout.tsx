import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { pageUrl } from '../../../src/dashboard/dashboard-pages.js';
import type { AppState } from '../app-context.js';
import { TeamSwitcher } from './team-switcher.js';

/** The frame of every page: a skip link, the header with navigation (when signed in) and the main landmark. */
export function Layout({ state, children }: { state: AppState | null; children: ComponentChildren }) {
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="site-header">
        <a class="brand" href="/">
          Scoreboard
        </a>
        {state && <Navigation state={state} />}
      </header>
      {/* Focused after each navigation (app.tsx), so a screen reader starts at the new page. */}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

function Navigation({ state }: { state: AppState }) {
  const { path } = useLocation();
  const teamId = state.profile.current_team_id;
  const links = [
    { href: '/', label: 'Projects', current: path === '/' || path.startsWith('/projects') || path.startsWith('/reports') },
    { href: pageUrl('assignedIssues', {}), label: 'Assigned to me' },
    { href: pageUrl('tokens', {}), label: 'Tokens' },
    teamId === null ? null : { href: pageUrl('team', { team: teamId }), label: 'Team', current: path.startsWith('/teams') },
    { href: pageUrl('invitations', {}), label: 'Invitations' },
    { href: pageUrl('audit', {}), label: 'Audit log' },
    { href: pageUrl('profile', {}), label: 'Profile' },
  ].filter((link) => link !== null);
  return (
    <nav aria-label="Main">
      <ul class="nav-links">
        {links.map((link) => (
          <li key={link.href}>
            <a href={link.href} aria-current={(link.current ?? path === link.href) ? 'page' : undefined}>
              {link.label}
            </a>
          </li>
        ))}
      </ul>
      <div class="nav-tools">
        <TeamSwitcher state={state} />
        <button type="button" class="link-button" onClick={() => void state.signOut()}>
          Sign out
        </button>
      </div>
    </nav>
  );
}
