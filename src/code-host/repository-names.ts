/**
 * E10.1: a repository as each code host names it in its API, and where people see it. One place
 * for the paths every call starts from and for the links a comment makes into the repository.
 *
 * - GitHub (and a GitHub App), Gitea: `owner/repo`; paths `/repos/{owner}/{repo}`.
 * - GitLab: a project's full path (`group/subgroup/project`) or its numeric id; paths
 *   `/projects/{id or URL-encoded path}`.
 * - Bitbucket Cloud: `workspace/repo_slug`; paths `/repositories/{workspace}/{repo_slug}`.
 */

export const CODE_HOST_PROVIDERS = ['github', 'github_app', 'gitlab', 'gitea', 'bitbucket'] as const;
export type CodeHostProvider = (typeof CODE_HOST_PROVIDERS)[number];

export function isCodeHostProvider(provider: string): provider is CodeHostProvider {
  return (CODE_HOST_PROVIDERS as readonly string[]).includes(provider);
}

/** The hosts' own rules for a name segment, loosely: letters, digits, `.`, `-`, `_` (GitLab groups nest). */
const SEGMENT = '[A-Za-z0-9_.][A-Za-z0-9_.-]*';
const OWNER_REPO = new RegExp(`^${SEGMENT}/${SEGMENT}$`);
const GITLAB_PATH = new RegExp(`^${SEGMENT}(?:/${SEGMENT})+$`);
export const REPOSITORY_MAX = 255;

const FORMS: Record<CodeHostProvider, { test: (name: string) => boolean; form: string }> = {
  github: { test: (name) => OWNER_REPO.test(name), form: '`owner/repo`' },
  github_app: { test: (name) => OWNER_REPO.test(name), form: '`owner/repo`' },
  gitea: { test: (name) => OWNER_REPO.test(name), form: '`owner/repo`' },
  gitlab: { test: (name) => /^[1-9][0-9]{0,18}$/.test(name) || GITLAB_PATH.test(name), form: 'a project path (`group/project`) or id' },
  bitbucket: { test: (name) => OWNER_REPO.test(name), form: '`workspace/repo_slug`' },
};

/** Null when `repository` is a name the provider's API takes; else why not, for a 422. */
export function repositoryProblem(provider: CodeHostProvider, repository: string): string | null {
  const { test, form } = FORMS[provider];
  if (repository.split('/').some((segment) => segment === '.' || segment === '..') || !test(repository)) {
    return `The repository must be ${form} for a ${provider} connection.`;
  }
  return null;
}

const segments = (repository: string) => repository.split('/').map(encodeURIComponent).join('/');

/** The API path of the repository, every call's prefix. */
export function repositoryPath(provider: CodeHostProvider, repository: string): string {
  switch (provider) {
    case 'gitlab':
      return `/projects/${encodeURIComponent(repository)}`;
    case 'bitbucket':
      return `/repositories/${segments(repository)}`;
    default:
      return `/repos/${segments(repository)}`;
  }
}

/** The host's web root, from the API root a connection stores (api.github.com → github.com). */
export function webRoot(provider: CodeHostProvider, baseUrl: string): string {
  const url = baseUrl.replace(/\/+$/, '');
  if (provider === 'github' || provider === 'github_app') {
    return url === 'https://api.github.com' ? 'https://github.com' : url.replace(/\/api\/v3$/, '');
  }
  if (provider === 'bitbucket') return url === 'https://api.bitbucket.org/2.0' ? 'https://bitbucket.org' : url.replace(/\/2\.0$/, '');
  if (provider === 'gitlab') return url.replace(/\/api\/v4$/, '');
  return url.replace(/\/api\/v1$/, '');
}

const encodeFile = (file: string) =>
  file
    .replace(/^\.?\/+/, '')
    .split('/')
    .filter((segment) => segment !== '')
    .map(encodeURIComponent)
    .join('/');

/**
 * A file at a line as of a commit, on the host's web pages; null when the repository is a GitLab
 * project id (its path, which the page needs, is not known).
 */
export function fileUrl(
  host: { provider: CodeHostProvider; base_url: string; repository: string },
  commit: string,
  file: string,
  line: number | null,
): string | null {
  const root = webRoot(host.provider, host.base_url);
  const repo = segments(host.repository);
  const sha = encodeURIComponent(commit);
  const path = encodeFile(file);
  switch (host.provider) {
    case 'gitlab':
      if (/^[0-9]+$/.test(host.repository)) return null;
      return `${root}/${repo}/-/blob/${sha}/${path}${line ? `#L${line}` : ''}`;
    case 'bitbucket':
      return `${root}/${repo}/src/${sha}/${path}${line ? `#lines-${line}` : ''}`;
    case 'gitea':
      return `${root}/${repo}/src/commit/${sha}/${path}${line ? `#L${line}` : ''}`;
    default:
      return `${root}/${repo}/blob/${sha}/${path}${line ? `#L${line}` : ''}`;
  }
}
