import { describe, expect, it } from 'vitest';
import { codeLinks, pullRequestLabel } from '../../web/src/lib/code-links.js';

const SHA = '3f2a9c1d0e4b5a6978877665544332211aabbccd';

describe('links into the code host (issue 31)', () => {
  it('GitHub: commit, file at a line, pull request; a trailing .git or slash is ignored', () => {
    for (const url of ['https://github.com/acme/shop', 'https://github.com/acme/shop.git', 'https://github.com/acme/shop/']) {
      const links = codeLinks(url)!;
      expect(links.host).toBe('github');
      expect(links.commit(SHA)).toBe(`https://github.com/acme/shop/commit/${SHA}`);
      expect(links.file(SHA, 'app/Http/Controllers/UserController.php', 130)).toBe(
        `https://github.com/acme/shop/blob/${SHA}/app/Http/Controllers/UserController.php#L130`,
      );
      expect(links.pullRequest('482')).toBe('https://github.com/acme/shop/pull/482');
    }
  });

  it('GitLab: nested groups, a self-hosted gitlab.* host, a URL inside the project, merge requests', () => {
    const links = codeLinks('https://gitlab.example.com/platform/php/shop/-/tree/main')!;
    expect(links.host).toBe('gitlab');
    expect(links.commit(SHA)).toBe(`https://gitlab.example.com/platform/php/shop/-/commit/${SHA}`);
    expect(links.file(SHA, 'routes/web.php', 57)).toBe(`https://gitlab.example.com/platform/php/shop/-/blob/${SHA}/routes/web.php#L57`);
    expect(links.pullRequest('12')).toBe('https://gitlab.example.com/platform/php/shop/-/merge_requests/12');
    expect(pullRequestLabel(links.host, '12')).toBe('!12');
  });

  it('Bitbucket: commits, src with #lines-N, pull-requests', () => {
    const links = codeLinks('https://bitbucket.org/acme/shop')!;
    expect(links.commit(SHA)).toBe(`https://bitbucket.org/acme/shop/commits/${SHA}`);
    expect(links.file(SHA, 'config/app.php', 9)).toBe(`https://bitbucket.org/acme/shop/src/${SHA}/config/app.php#lines-9`);
    expect(links.pullRequest('7')).toBe('https://bitbucket.org/acme/shop/pull-requests/7');
    expect(pullRequestLabel(links.host, '7')).toBe('#7');
  });

  it('encodes each path segment, keeps the slashes, and leaves out the line when there is none', () => {
    const links = codeLinks('https://github.com/acme/shop')!;
    expect(links.file(SHA, './resources/views/a b#1.blade.php', null)).toBe(
      `https://github.com/acme/shop/blob/${SHA}/resources/views/a%20b%231.blade.php`,
    );
  });

  it('gives no link for an unknown host, a URL that names no repository, or no URL', () => {
    for (const url of [
      null,
      '',
      'not a url',
      'ftp://github.com/acme/shop',
      'https://git.example.com/acme/shop',
      'https://github.com/acme',
      'https://github.com/acme/shop/tree/main',
      'https://gitlab.com/acme',
    ]) {
      expect(codeLinks(url)).toBeNull();
    }
  });
});
