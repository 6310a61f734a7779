/**
 * E9.4: a file at a line, as of a commit, in the code host holding the project's repository, for a
 * ticket's body. The same rule as the dashboard's links (web/src/lib/code-links.ts: GitHub, GitLab
 * on gitlab.com or a `gitlab.*` host, Bitbucket Cloud; a `repository_url` naming a repository, an
 * owner and a name at least), kept in step with it by test/tickets/ticket-text.test.ts; anything
 * else gives no link rather than a guessed one that would 404. (web/ is built apart from src/, so
 * the rule is not imported from there.)
 */

type CodeHost = 'github' | 'gitlab' | 'bitbucket';

function hostOf(hostname: string): CodeHost | null {
  const host = hostname.toLowerCase();
  if (host === 'github.com' || host === 'www.github.com') return 'github';
  if (host === 'bitbucket.org' || host === 'www.bitbucket.org') return 'bitbucket';
  if (host === 'gitlab.com' || host.startsWith('gitlab.')) return 'gitlab';
  return null;
}

/** Path segments are encoded one by one, so `/` stays a separator and `#` or `?` in a name stay in it. */
function encodePath(path: string): string {
  return path
    .replace(/^\.?\/+/, '')
    .split('/')
    .filter((segment) => segment !== '')
    .map(encodeURIComponent)
    .join('/');
}

/** The link to `file` (at `line`) as of `commit`; null when the repository's host or layout is not known. */
export function fileLink(repositoryUrl: string | null, commit: string | null, file: string, line: number | null): string | null {
  if (!repositoryUrl || !commit) return null;
  let url: URL;
  try {
    url = new URL(repositoryUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = hostOf(url.hostname);
  if (!host) return null;
  const segments = url.pathname
    .replace(/\.git$/, '')
    .split('/')
    .filter((segment) => segment !== '');
  // GitLab groups nest (group/subgroup/project); GitHub and Bitbucket are exactly owner/name.
  if (segments.length < 2 || (host !== 'gitlab' && segments.length !== 2)) return null;
  const dash = segments.indexOf('-');
  const project = dash === -1 ? segments : segments.slice(0, dash);
  if (project.length < 2) return null;
  const base = `${url.origin}/${project.join('/')}`;
  const sha = encodeURIComponent(commit.trim());
  switch (host) {
    case 'github':
      return `${base}/blob/${sha}/${encodePath(file)}${line ? `#L${line}` : ''}`;
    case 'gitlab':
      return `${base}/-/blob/${sha}/${encodePath(file)}${line ? `#L${line}` : ''}`;
    case 'bitbucket':
      return `${base}/src/${sha}/${encodePath(file)}${line ? `#lines-${line}` : ''}`;
  }
}
