/**
 * Where to go after signing in: the `next` of `/sign-in?next=...`, when it is a path of this site.
 * Anything else (`//evil.example`, `https://...`, `/\\evil`) would make the sign-in page an open
 * redirect, so it falls back to the projects page.
 */
export function safeNextPath(next: string | undefined): string {
  if (next === undefined || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (next === '/sign-in' || next.startsWith('/sign-in?')) return '/';
  return next;
}

/** The sign-in page's URL that comes back to `path` afterwards. */
export function signInUrl(path: string): string {
  return path === '/' || path.startsWith('/sign-in') ? '/sign-in' : `/sign-in?next=${encodeURIComponent(path)}`;
}
