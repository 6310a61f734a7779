import type { ComponentType } from 'preact';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { DASHBOARD_PAGES, type PageName } from '../../src/dashboard/dashboard-pages.js';
import { api, call, setCsrfToken, whenUnauthenticated } from './api/client.js';
import { asProblem, type Problem } from './api/problems.js';
import type { Profile, Session } from './api/types.js';
import { AppContext, type AppState } from './app-context.js';
import { Layout } from './components/layout.js';
import { ProblemMessage } from './components/problem-message.js';
import { safeNextPath, signInUrl } from './lib/next-path.js';
import { forgetTrends } from './lib/trend-cache.js';
import { AssignedIssuesPage } from './pages/assigned-issues.js';
import { AuditPage } from './pages/audit.js';
import { InvitationsPage } from './pages/invitations.js';
import { NewProjectPage } from './pages/new-project.js';
import { ProfilePage } from './pages/profile.js';
import { FailedRunsPage } from './pages/project/failed-runs.js';
import { ProjectIssuesPage } from './pages/project/project-issues.js';
import { ProjectPage } from './pages/project/project-page.js';
import { PullRequestsPage } from './pages/project/pull-requests-page.js';
import { ProjectsPage } from './pages/projects.js';
import { ReportPage } from './pages/report.js';
import { SignInPage } from './pages/sign-in.js';
import { TeamPage } from './pages/team.js';
import { TokensPage } from './pages/tokens.js';

/** Every page but sign-in, by name: the compiler checks that each page of DASHBOARD_PAGES has one. */
const SIGNED_IN_PAGES: Record<Exclude<PageName, 'signIn'>, ComponentType> = {
  projects: ProjectsPage,
  newProject: NewProjectPage,
  project: ProjectPage,
  pullRequests: PullRequestsPage,
  failedRuns: FailedRunsPage,
  projectIssues: ProjectIssuesPage,
  report: ReportPage,
  tokens: TokensPage,
  team: TeamPage,
  invitations: InvitationsPage,
  audit: AuditPage,
  profile: ProfilePage,
  assignedIssues: AssignedIssuesPage,
};

export function App() {
  return (
    <LocationProvider>
      <Dashboard />
    </LocationProvider>
  );
}

type Status =
  | { kind: 'loading' }
  | { kind: 'signed-out' }
  | { kind: 'signed-in'; session: Session; profile: Profile }
  | { kind: 'failed'; problem: Problem };

/** Who is signed in (GET /api/v1/session at start-up), and which pages that allows. */
function Dashboard() {
  const location = useLocation();
  const [status, setStatus] = useState<Status>({ kind: 'loading' });

  const signedIn = useCallback(async (session: Session) => {
    setCsrfToken(session.csrf_token);
    forgetTrends();
    const { data: profile } = await call(api.GET('/api/v1/user'));
    setStatus({ kind: 'signed-in', session, profile });
  }, []);

  useEffect(() => {
    // A 401 from any call: the session has ended (expired, signed out elsewhere, password changed).
    whenUnauthenticated(() => {
      setCsrfToken(null);
      setStatus({ kind: 'signed-out' });
      location.route(signInUrl(window.location.pathname + window.location.search), true);
    });
    call(api.GET('/api/v1/session'), { expect401: true })
      .then(({ data }) => signedIn(data))
      .catch((error: unknown) =>
        setStatus(asProblem(error).status === 401 ? { kind: 'signed-out' } : { kind: 'failed', problem: asProblem(error) }),
      );
    // Once, at start-up.
  }, []);

  const onSignInPage = location.path === DASHBOARD_PAGES.signIn;
  useEffect(() => {
    if (status.kind === 'signed-out' && !onSignInPage) location.route(signInUrl(location.url), true);
    if (status.kind === 'signed-in' && onSignInPage) location.route(safeNextPath(location.query.next), true);
  }, [status.kind, onSignInPage]);

  const state = useMemo<AppState | null>(
    () =>
      status.kind !== 'signed-in'
        ? null
        : {
            session: status.session,
            profile: status.profile,
            profileChanged: (profile) => setStatus({ ...status, profile }),
            signOut: async () => {
              await call(api.DELETE('/api/v1/session')).catch(() => undefined);
              setCsrfToken(null);
              setStatus({ kind: 'signed-out' });
              location.route(DASHBOARD_PAGES.signIn);
            },
          },
    [status],
  );

  if (status.kind === 'loading') return <Layout state={null}>{null}</Layout>;
  if (status.kind === 'failed') {
    return (
      // Whether anyone is signed in is unknown: the service is down, or over its budget for this address (429).
      <Layout state={null}>
        <h1>The dashboard could not start</h1>
        <ProblemMessage problem={status.problem} />
        <button type="button" onClick={() => window.location.reload()}>
          Try again
        </button>
      </Layout>
    );
  }
  if (state === null) {
    return <Layout state={null}>{onSignInPage && <SignInPage onSignedIn={signedIn} />}</Layout>;
  }
  return (
    <AppContext.Provider value={state}>
      <Layout state={state}>
        <Router onRouteChange={focusMain}>
          {Object.entries(SIGNED_IN_PAGES).map(([name, page]) => (
            <Route key={name} path={DASHBOARD_PAGES[name as keyof typeof SIGNED_IN_PAGES]} component={page} />
          ))}
          <Route default component={NotFoundPage} />
        </Router>
      </Layout>
    </AppContext.Provider>
  );
}

function NotFoundPage() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is no such page. <a href="/">Go to the projects</a>.
      </p>
    </>
  );
}

/** After a navigation, focus moves to the new page's content, where a keyboard or screen reader user expects it. */
function focusMain() {
  document.getElementById('main')?.focus();
}
