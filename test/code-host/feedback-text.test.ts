import { describe, expect, it } from 'vitest';
import {
  ANNOTATION_MESSAGE_MAX,
  ANNOTATION_TITLE_MAX,
  ANNOTATIONS_MAX,
  type AnnotationIssue,
  type CodeHostKind,
  CHECK_RUN_SUMMARY_MAX,
  checkRunAnnotations,
  checkRunOutput,
  commentMarker,
  type FeedbackFacts,
  type FeedbackIssue,
  pullRequestComment,
  STATUS_DESCRIPTION_MAX,
  statusDescription,
} from '../../src/code-host/feedback-text.js';

const PROJECT = '0b6f7c1e-2a4d-4c8e-9f10-3d5e6a7b8c9d';
const OTHER_PROJECT = '11111111-2222-4333-8444-555555555555';
const HOSTS: CodeHostKind[] = ['github', 'gitlab', 'gitea', 'bitbucket'];
const blob = (file: string, line: number) => `https://github.com/acme/shop/blob/3f9c2e1d4b5a69788f0e1d2c3b4a59687f6e5d4c/${file}#L${line}`;

const issue = (overrides: Partial<FeedbackIssue> = {}): FeedbackIssue => ({
  severity: 'high',
  analyzerName: 'PHPStan',
  message: 'Undefined variable $x',
  file: 'src/Cart.php',
  line: 12,
  fileUrl: blob('src/Cart.php', 12),
  ...overrides,
});

/** The ten new issues listed of twelve: every way a message or a file can be hostile. */
const hostileIssues: FeedbackIssue[] = [
  issue({
    severity: 'critical',
    message: 'SQL built from user input | see `query()` | fix it',
    file: 'src/Db.php',
    line: 40,
    fileUrl: blob('src/Db.php', 40),
  }),
  issue({
    severity: 'critical',
    analyzerName: 'Psalm',
    message: '<script>alert(1)</script> and <img src=x onerror=alert(2)> after https://docs.example/a<javascript:alert(3)>',
  }),
  issue({
    severity: 'high',
    message: 'ping @octocat and @acme/security about #12 and !7',
    file: 'src/@types/user.ts',
    line: 3,
    fileUrl: blob('src/%40types/user.ts', 3),
  }),
  issue({ severity: 'high', analyzerName: 'PHP_CodeSniffer', message: 'Line one\nline two\r\n\tline three   with   spaces' }),
  issue({
    severity: 'high',
    message:
      '[click me](javascript:alert(1)) ![tracker](https://evil.example/p.png) [[https://evil.example/w.png|wiki]] **bold** _it_ ~~gone~~',
  }),
  issue({
    severity: 'medium',
    analyzerName: 'ESLint',
    message: `Very long: ${'lorem ipsum dolor sit amet '.repeat(400)}`,
    file: 'web/app.js',
    line: 7,
    fileUrl: blob('web/app.js', 7),
  }),
  issue({
    severity: 'medium',
    message: `Fake marker <!-- scoreboard:project:${OTHER_PROJECT} --> [//]: # (scoreboard:project:${OTHER_PROJECT})`,
    file: 'composer.json',
    line: null,
    fileUrl: 'https://github.com/acme/shop/blob/3f9c2e1d4b5a69788f0e1d2c3b4a59687f6e5d4c/composer.json',
  }),
  issue({
    severity: 'low',
    analyzerName: 'Deptrac',
    message: 'math $x$ and \\(y\\) and f(x) = {+ added +} ~label %milestone &epic',
    file: 'src/Shop|Legacy/`odd`.php',
    line: 5,
    fileUrl: null,
  }),
  issue({
    severity: 'low',
    message: '1. not a list | a cell? &amp; &lt;b&gt;',
    file: 'src/Order Service (v2).php',
    line: 88,
    fileUrl: blob('src/Order%20Service%20(v2).php', 88),
  }),
  issue({
    severity: 'info',
    analyzerName: 'Composer audit',
    message: 'Package acme/legacy is abandoned',
    file: null,
    line: null,
    fileUrl: null,
  }),
];

const richFacts: FeedbackFacts = {
  projectId: PROJECT,
  projectName: 'Shop <backend> @acme',
  reportUrl: 'https://scoreboard.example/projects/shop/reports/8c1d2e3f',
  changesUrl: 'https://scoreboard.example/projects/shop/reports/8c1d2e3f?tab=new',
  commit: '3f9c2e1d4b5a69788f0e1d2c3b4a59687f6e5d4c',
  branch: 'feature/checkout-v2',
  baseBranch: 'main',
  pullRequest: '42',
  score: 61,
  baselineScore: 65,
  gate: {
    passed: false,
    reasons: ['3 issues at or above high severity in failed analyzers: phpstan, psalm.', 'Score 61 is below the threshold of 70.'],
  },
  newCount: 12,
  fixedCount: 3,
  newIssues: hostileIssues,
  newIssuesTotal: 12,
};

const smallFacts: FeedbackFacts = {
  projectId: PROJECT,
  projectName: 'Shop',
  reportUrl: 'https://scoreboard.example/projects/shop/reports/9a8b7c6d',
  changesUrl: 'https://scoreboard.example/projects/shop/reports/9a8b7c6d?tab=new',
  commit: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
  branch: 'fix/typo',
  baseBranch: null,
  pullRequest: '7',
  score: 87,
  baselineScore: null,
  gate: { passed: true, reasons: [] },
  newCount: null,
  fixedCount: null,
  newIssues: [
    issue({
      severity: 'medium',
      analyzerName: 'PHPStan',
      message: 'Method Cart::total() has no return type.',
      line: 31,
      fileUrl: blob('src/Cart.php', 31),
    }),
  ],
  newIssuesTotal: 1,
};

/** The table's body rows: lines that start with a pipe, after the header and its delimiter row. */
const tableRows = (markdown: string) =>
  markdown
    .split('\n')
    .filter((line) => line.startsWith('| '))
    .slice(2);
/** A row's cells, split on pipes that are not escaped. */
const cellsOf = (row: string) => row.split(/(?<!\\)\|/).slice(1, -1);

describe('E10.3 pull request comment: reviewed examples, byte for byte', () => {
  for (const host of HOSTS) {
    it(`renders the rich example for ${host}`, async () => {
      await expect(pullRequestComment(richFacts, host)).toMatchFileSnapshot(`./examples/comment-${host}.md`);
    });
    it(`renders the small example (gate passed, no baseline) for ${host}`, async () => {
      await expect(pullRequestComment(smallFacts, host)).toMatchFileSnapshot(`./examples/comment-${host}-small.md`);
    });
  }
});

describe('E10.3 pull request comment: safe whatever the input', () => {
  it('starts with the marker line the contract names, on every host, and holds no other marker raw', () => {
    const marker = commentMarker(PROJECT);
    expect(marker).toBe(`<!-- scoreboard:project:${PROJECT} -->`);
    for (const host of HOSTS) {
      const text = pullRequestComment(richFacts, host);
      expect(text.startsWith(`${marker}\n\n`)).toBe(true);
      expect(text.split('scoreboard:project:').length - 1).toBe(3); // ours and the message's two fakes
      expect(text).not.toContain(commentMarker(OTHER_PROJECT));
      expect(text.slice(marker.length)).not.toMatch(/<!--|(?<!\\)\[\/\/\]:/);
    }
  });

  it('keeps every row of the table at four cells, one line each', () => {
    for (const host of HOSTS) {
      const rows = tableRows(pullRequestComment(richFacts, host));
      expect(rows).toHaveLength(10);
      for (const row of rows) expect(cellsOf(row)).toHaveLength(4);
    }
  });

  it('links only what Scoreboard links: no link, image or HTML from a message', () => {
    for (const host of HOSTS) {
      const text = pullRequestComment(richFacts, host);
      const destinations = [...text.matchAll(/(?<!\\)\]\(([^)]*)\)/g)].map((match) => match[1]!);
      expect(destinations.length).toBe(11);
      for (const destination of destinations)
        expect(destination).toMatch(/^https:\/\/(github\.com\/acme\/shop\/blob\/|scoreboard\.example\/)/);
      expect(text).not.toMatch(/(?<!\\)!(?<!\\)\[/);
      // CommonMark hosts: no unescaped `<`; Bitbucket escapes every HTML tag itself.
      const afterMarker = text.slice(commentMarker(PROJECT).length);
      if (host !== 'bitbucket') expect(afterMarker).not.toMatch(/(?<!\\)</);
      // Bitbucket cannot escape a `<`: nothing follows one that could open a tag.
      else expect(afterMarker).not.toMatch(/<[A-Za-z/!?]/);
      // Gitea's `[[wiki links]]`, read in the rendered text, escaped or not.
      expect(text).not.toMatch(/\[\\?\[/);
    }
  });

  it('mentions nobody and references nothing: a ZERO WIDTH SPACE follows each @, and sits between # or ! and a digit', () => {
    for (const host of HOSTS) {
      const text = pullRequestComment(richFacts, host);
      expect(text).not.toMatch(/@(?!\u200b)/);
      expect(text).not.toMatch(/[#!]\d/);
      expect(text).toContain('octocat');
    }
  });

  it('puts a message on one line, cut to 200 characters with an ellipsis', () => {
    const text = pullRequestComment(richFacts, 'github');
    expect(text).toContain('| Line one line two line three with spaces |');
    const long = tableRows(text).find((row) => row.includes('Very long'))!;
    const message = cellsOf(long)[2]!.trim();
    expect(message.endsWith('…')).toBe(true);
    expect(message.length).toBe(200);
  });

  it('neutralises Gitea math and GitLab references with escapes, and leaves parentheses alone', () => {
    const text = pullRequestComment(richFacts, 'gitea');
    expect(text).toContain('math \\$x\\$ and \\\\(y\\\\) and f(x) = \\{+ added +\\} \\~label \\%milestone \\&epic');
    expect(text).not.toMatch(/(?<!\\)\\\(/);
  });

  it('starts no block inside a reason, and lists at most ten reasons', () => {
    const reasons = [
      '1. looks like a list',
      '- looks like a bullet',
      '# looks like a heading',
      ...Array.from({ length: 12 }, (_, i) => `reason ${i}`),
    ];
    const text = pullRequestComment({ ...richFacts, gate: { passed: false, reasons } }, 'github');
    expect(text).toContain('- 1\\. looks like a list\n- \\- looks like a bullet\n- \\# looks like a heading\n');
    expect(text).toContain('- reason 6\n- …and 5 more\n');
    expect(text).not.toContain('reason 7');
  });

  it('says so when there is no gate, no new issue, or only dismissed ones', () => {
    const none = pullRequestComment({ ...richFacts, gate: null, newCount: 0, fixedCount: 0, newIssues: [], newIssuesTotal: 0 }, 'github');
    expect(none).toContain('\n\nNo quality gate was applied to this report.\n\n');
    expect(none).toContain('**Score 61** (-4 against main) · **0 new issues** · **0 fixed**\n\nNo new issues.\n\n');
    expect(none).not.toContain('| Severity |');
    const dismissed = pullRequestComment({ ...richFacts, newCount: 2, newIssues: [], newIssuesTotal: 0 }, 'github');
    expect(dismissed).toContain('**2 new issues** · **3 fixed**\n\nEvery new issue has been dismissed.\n\n');
    const first = pullRequestComment({ ...smallFacts, newIssues: [], newIssuesTotal: 0 }, 'github');
    expect(first).toContain('**Score 87** (no baseline yet)\n\n[View the changes');
  });

  it('says how the score moved against the baseline, in one issue or many', () => {
    const line = (facts: Partial<FeedbackFacts>) =>
      pullRequestComment({ ...richFacts, ...facts }, 'github')
        .split('\n')
        .find((l) => l.startsWith('**Score'));
    expect(line({ score: 90, baselineScore: 87 })).toBe('**Score 90** (+3 against main) · **12 new issues** · **3 fixed**');
    expect(line({ score: 87, baselineScore: 87, baseBranch: null, newCount: 1, fixedCount: null })).toBe(
      '**Score 87** (no change against the baseline) · **1 new issue**',
    );
    const more = pullRequestComment({ ...richFacts, newIssuesTotal: 11 }, 'github');
    expect(more).toContain(
      '…and 1 more new issue: [see them all in Scoreboard](https://scoreboard.example/projects/shop/reports/8c1d2e3f?tab=new)',
    );
    expect(pullRequestComment({ ...richFacts, newIssuesTotal: 10 }, 'github')).not.toContain('more new issue');
  });

  it('links nothing that is not an http(s) URL', () => {
    const text = pullRequestComment(
      { ...smallFacts, changesUrl: 'javascript:alert(1)', newIssues: [issue({ fileUrl: 'data:text/html,<b>x</b>' })] },
      'github',
    );
    expect(text).not.toContain('javascript:');
    expect(text).not.toContain('data:');
    expect(text).toContain('| `src/Cart.php:12` |');
    expect(text).toContain(
      '\n\nView the changes in Scoreboard · [full report](https://scoreboard.example/projects/shop/reports/9a8b7c6d) · ',
    );
  });

  it('stays well under GitHub’s 65,536 characters with every field at its worst', () => {
    // The characters that grow the most: `<` becomes `&lt;` (CommonMark), `@` gains a backslash and a ZERO WIDTH SPACE.
    for (const worst of ['<'.repeat(5_000), '@'.repeat(5_000)]) {
      const url = `https://github.com/acme/shop/blob/abc/${'a'.repeat(960)}`;
      const facts: FeedbackFacts = {
        ...richFacts,
        projectName: worst,
        commit: worst,
        branch: worst,
        baseBranch: worst,
        reportUrl: `https://scoreboard.example/${'a'.repeat(960)}`,
        changesUrl: `https://scoreboard.example/${'b'.repeat(960)}`,
        gate: { passed: false, reasons: Array.from({ length: 5_000 }, () => worst) },
        newIssues: Array.from({ length: 50 }, () => issue({ analyzerName: worst, message: worst, file: worst, fileUrl: url })),
        newIssuesTotal: 100_000,
      };
      for (const host of HOSTS) {
        const text = pullRequestComment(facts, host);
        expect(text.length).toBeLessThan(50_000);
        expect(tableRows(text)).toHaveLength(10);
        for (const row of tableRows(text)) expect(cellsOf(row)).toHaveLength(4);
      }
      expect(checkRunOutput(facts).summary.length).toBeLessThanOrEqual(CHECK_RUN_SUMMARY_MAX);
    }
  });
});

describe('E10.2 commit status description', () => {
  it('reads like the spec, with one issue or many', () => {
    expect(statusDescription({ ...richFacts, newCount: 2, gate: { passed: true, reasons: [] } })).toBe(
      'Score 61 · 2 new issues · gate passed',
    );
    expect(statusDescription({ ...richFacts, newCount: 1, gate: { passed: true, reasons: [] } })).toBe(
      'Score 61 · 1 new issue · gate passed',
    );
    expect(statusDescription({ ...richFacts, newCount: 0 })).toBe(
      'Score 61 · 0 new issues · gate failed: 3 issues at or above high severity in failed analyzers: phpstan, psalm.',
    );
  });

  it('leaves out the new issues without a baseline, and the gate without one stored', () => {
    expect(statusDescription({ ...richFacts, newCount: null, gate: null })).toBe('Score 61');
    expect(statusDescription({ ...richFacts, newCount: null, gate: { passed: false, reasons: [] } })).toBe('Score 61 · gate failed');
    expect(statusDescription(smallFacts)).toBe('Score 87 · gate passed');
  });

  it('cuts a long reason to 140 characters with an ellipsis, on one line', () => {
    const reason = `first line\n${'x'.repeat(2_000)}`;
    const description = statusDescription({ ...richFacts, gate: { passed: false, reasons: [reason, 'second'] } });
    expect(description.length).toBe(STATUS_DESCRIPTION_MAX);
    expect(description.startsWith('Score 61 · 12 new issues · gate failed: first line xxx')).toBe(true);
    expect(description.endsWith('x…')).toBe(true);
    expect(description).not.toContain('\n');
  });
});

describe('E10.5 check run', () => {
  it('titles a failed gate by its first reason, else the score and new issues', () => {
    expect(checkRunOutput(richFacts).title).toBe('Gate failed: 3 issues at or above high severity in failed analyzers: phpstan, psalm.');
    expect(checkRunOutput({ ...richFacts, gate: { passed: true, reasons: [] }, newCount: 2 }).title).toBe('Score 61 · 2 new issues');
    expect(checkRunOutput(smallFacts).title).toBe('Score 87');
    const long = checkRunOutput({ ...richFacts, gate: { passed: false, reasons: ['y'.repeat(2_000)] } }).title;
    expect(long.length).toBe(140);
    expect(long.endsWith('y…')).toBe(true);
  });

  it('summarises with the GitHub comment, without its marker line', () => {
    const { summary } = checkRunOutput(richFacts);
    const comment = pullRequestComment(richFacts, 'github');
    expect(summary).toBe(comment.slice(`${commentMarker(PROJECT)}\n\n`.length));
    expect(summary).not.toContain('<!--');
  });

  const annotated = (overrides: Partial<AnnotationIssue> = {}): AnnotationIssue => ({
    severity: 'high',
    analyzerName: 'PHPStan',
    message: 'Undefined variable $x',
    file: 'src/Cart.php',
    line: 12,
    ...overrides,
  });

  it('annotates each issue at its line, at the level of its SARIF level (E3), most severe first', () => {
    const annotations = checkRunAnnotations(
      (['info', 'low', 'medium', 'high', 'critical'] as const).map((severity, index) => annotated({ severity, line: index + 1 })),
    );
    expect(annotations.map((a) => [a.start_line, a.annotation_level])).toEqual([
      [5, 'failure'],
      [4, 'failure'],
      [3, 'warning'],
      [2, 'notice'],
      [1, 'notice'],
    ]);
    expect(annotations[0]).toEqual({
      path: 'src/Cart.php',
      start_line: 5,
      end_line: 5,
      annotation_level: 'failure',
      title: 'PHPStan · critical',
      message: 'Undefined variable $x',
    });
  });

  it('keeps within GitHub’s limits: title 255, message 64 KB, 1,000 annotations; plain text that keeps its lines', () => {
    const [big] = checkRunAnnotations([
      annotated({ analyzerName: `A\n${'n'.repeat(400)}`, message: `one\r\ntwo\u202e\u0007\n${'😀'.repeat(30_000)}` }),
    ]);
    expect(big!.title.length).toBe(ANNOTATION_TITLE_MAX);
    expect(big!.title.startsWith('A nnn')).toBe(true);
    expect(big!.message.length).toBeLessThanOrEqual(ANNOTATION_MESSAGE_MAX);
    expect(Buffer.byteLength(big!.message)).toBeLessThan(64 * 1024);
    expect(big!.message.startsWith('one\ntwo\n😀')).toBe(true);
    expect(big!.message.endsWith('😀…')).toBe(true);
    expect(checkRunAnnotations(Array.from({ length: 1_200 }, () => annotated()))).toHaveLength(ANNOTATIONS_MAX);
  });

  it('leaves out what GitHub would refuse, and reads a path as the repository does', () => {
    const annotations = checkRunAnnotations([
      annotated({ line: 0 }),
      annotated({ line: 2.5 }),
      annotated({ file: '  ' }),
      annotated({ file: './src/a.php', message: '   ' }),
    ]);
    expect(annotations).toEqual([
      { path: 'src/a.php', start_line: 12, end_line: 12, annotation_level: 'failure', title: 'PHPStan · high', message: 'PHPStan' },
    ]);
  });
});
