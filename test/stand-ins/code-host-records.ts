/**
 * What a code host's stand-in keeps of the calls E10 makes, alike for GitHub, GitLab, Gitea and
 * Bitbucket so that a test reads any of them the same way. A repository is named as the host names
 * it in its paths: `owner/repo` on GitHub and Gitea, `workspace/slug` on Bitbucket, the project's
 * full path (`group/sub/project`) on GitLab. A pull request is a repository and its number (GitLab's
 * merge request iid, Gitea's index). Only repositories and pull requests the test added exist: the
 * hosts answer 404 for any other, and so do their stand-ins.
 */
export interface ReceivedStatus {
  repo: string;
  sha: string;
  /** The request's JSON body as received. */
  body: Record<string, unknown>;
}

export interface StoredComment {
  id: number;
  /** The text as last written (Bitbucket's `content.raw`). */
  body: string;
  /** How many edits replaced the text since it was created. */
  edits: number;
}

export interface CodeHostRepos {
  /** Every commit status accepted, oldest first. */
  statuses: ReceivedStatus[];
  /** The pull request's comments that still exist, oldest first. */
  comments(repo: string, number: number): StoredComment[];
  /** Deletes a comment as a person would on the host's page: editing it afterwards is the host's 404. */
  deleteComment(id: number): void;
  /** Makes a repository exist (statuses need one). */
  addRepo(repo: string): void;
  /** Makes a pull request exist, and its repository with it. */
  addPullRequest(repo: string, number: number): void;
}

interface Comment extends StoredComment {
  repo: string;
  number: number;
}

/** The side of the records the routes use. */
export interface CodeHostStore {
  hasRepo(repo: string): boolean;
  hasPullRequest(repo: string, number: number): boolean;
  createComment(repo: string, number: number, body: string): Comment;
  /** The comment, when it exists in that repository (and in that pull request when one is given). */
  findComment(repo: string, id: number, number?: number): Comment | undefined;
  editComment(comment: Comment, body: string): Comment;
}

/** Records whose comment ids start at `firstCommentId`, so that ids look like the host's and stay apart from other stand-ins'. */
export function codeHostRecords(firstCommentId: number): { repos: CodeHostRepos; store: CodeHostStore } {
  const repos = new Set<string>();
  const pullRequests = new Set<string>();
  const comments = new Map<number, Comment>();
  let nextId = firstCommentId;
  const keyOf = (repo: string, number: number) => `${repo}#${number}`;
  return {
    repos: {
      statuses: [],
      comments: (repo, number) =>
        [...comments.values()]
          .filter((comment) => comment.repo === repo && comment.number === number)
          .map(({ id, body, edits }) => ({ id, body, edits })),
      deleteComment: (id) => {
        comments.delete(id);
      },
      addRepo: (repo) => {
        repos.add(repo);
      },
      addPullRequest: (repo, number) => {
        repos.add(repo);
        pullRequests.add(keyOf(repo, number));
      },
    },
    store: {
      hasRepo: (repo) => repos.has(repo),
      hasPullRequest: (repo, number) => pullRequests.has(keyOf(repo, number)),
      createComment(repo, number, body) {
        const comment = { id: nextId++, body, edits: 0, repo, number };
        comments.set(comment.id, comment);
        return comment;
      },
      findComment(repo, id, number) {
        const comment = comments.get(id);
        if (!comment || comment.repo !== repo || (number !== undefined && comment.number !== number)) return undefined;
        return comment;
      },
      editComment(comment, body) {
        comment.body = body;
        comment.edits += 1;
        return comment;
      },
    },
  };
}

/** The JSON body as an object, or an empty one (a missing or non-object body fails each required field alike). */
export function jsonObject(json: unknown): Record<string, unknown> {
  return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
}
