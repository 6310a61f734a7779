/**
 * E7: the dashboard's pages, each at its own URL. One list for both sides: the server answers the
 * app's `index.html` for exactly these paths (dashboard.routes.ts) and the app routes them
 * (web/src/app.tsx), so a page cannot exist on one side only. The patterns are written in the
 * syntax both routers read: `:name` matches one path segment.
 */
export const DASHBOARD_PAGES = {
  projects: '/',
  signIn: '/sign-in',
  newProject: '/projects/new',
  project: '/projects/:project',
  pullRequests: '/projects/:project/pull-requests',
  failedRuns: '/projects/:project/failed-runs',
  projectIssues: '/projects/:project/issues',
  report: '/reports/:report',
  tokens: '/tokens',
  team: '/teams/:team',
  invitations: '/invitations',
  audit: '/audit',
  profile: '/profile',
  assignedIssues: '/assigned-to-me',
} as const;

export type PageName = keyof typeof DASHBOARD_PAGES;

/** `{project: string}` for `/projects/:project`, `{}` for `/tokens`. */
export type PageParams<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string | number } & PageParams<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? { [K in Name]: string | number }
    : Record<never, never>;

/** The URL of a page, its parameters filled in and percent-encoded: `pageUrl('project', {project: id})`. */
export function pageUrl<Name extends PageName>(name: Name, params: PageParams<(typeof DASHBOARD_PAGES)[Name]>): string {
  const values = params as Record<string, string | number>;
  return DASHBOARD_PAGES[name].replace(/:(\w+)/g, (_, key: string) => encodeURIComponent(String(values[key])));
}
