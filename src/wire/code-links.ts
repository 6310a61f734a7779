/**
 * Links from a report into the code host that holds the project's repository (issue 31): a commit,
 * a file at a line as of a commit, a pull or merge request. Only for the hosts whose URL layout is
 * known — GitHub, GitLab (gitlab.com or a self-hosted `gitlab.*` host) and Bitbucket Cloud — and
 * only from a `repository_url` that names a repository (an owner and a name at least); anything
 * else gives no link rather than a guessed one that would 404.
 */

export type CodeHost = 'github' | 'gitlab' | 'bitbucket';

export interface CodeLinks {
  host: CodeHost;
  commit(sha: string): string;
  /** `file` relative to the repository (as the client sends `location.file`), at `sha`. */
  file(sha: string, file: string, line?: number | null): string;
  pullRequest(number: string): string;
}

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

export function codeLinks(repositoryUrl: string | null | undefined): CodeLinks | null {
  if (!repositoryUrl) return null;
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
  // A GitLab URL that already points inside the project (`/-/tree/main`) names the project before `/-/`.
  const dash = segments.indexOf('-');
  const project = dash === -1 ? segments : segments.slice(0, dash);
  if (project.length < 2) return null;
  const base = `${url.origin}/${project.join('/')}`;
  const sha = (value: string) => encodeURIComponent(value.trim());

  switch (host) {
    case 'github':
      return {
        host,
        commit: (commit) => `${base}/commit/${sha(commit)}`,
        file: (commit, file, line) => `${base}/blob/${sha(commit)}/${encodePath(file)}${line ? `#L${line}` : ''}`,
        pullRequest: (number) => `${base}/pull/${encodeURIComponent(number)}`,
      };
    case 'gitlab':
      return {
        host,
        commit: (commit) => `${base}/-/commit/${sha(commit)}`,
        file: (commit, file, line) => `${base}/-/blob/${sha(commit)}/${encodePath(file)}${line ? `#L${line}` : ''}`,
        pullRequest: (number) => `${base}/-/merge_requests/${encodeURIComponent(number)}`,
      };
    case 'bitbucket':
      return {
        host,
        commit: (commit) => `${base}/commits/${sha(commit)}`,
        file: (commit, file, line) => `${base}/src/${sha(commit)}/${encodePath(file)}${line ? `#lines-${line}` : ''}`,
        pullRequest: (number) => `${base}/pull-requests/${encodeURIComponent(number)}`,
      };
  }
}

/** What to call a pull request on `host`: GitLab says merge request. */
export function pullRequestLabel(host: CodeHost | null | undefined, number: string): string {
  return host === 'gitlab' ? `!${number}` : `#${number}`;
}
