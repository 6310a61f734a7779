import { describe, expect, it } from 'vitest';
import { fileLink } from '../../src/tickets/code-links.js';
import { TITLE_MAX, type TicketFacts, ticketDocument, ticketTitle, toAdf, toMarkdown, toWiki } from '../../src/tickets/ticket-text.js';

const facts = (overrides: Partial<TicketFacts> = {}): TicketFacts => ({
  analyzerName: 'PHPStan',
  message: 'Undefined variable $x',
  severity: 'high',
  category: 'bugs',
  file: 'src/a.php',
  line: 12,
  snippet: { '11': '$y = 1;', '12': 'echo $x;' },
  recommendation: 'Define $x first.',
  fileUrl: 'https://github.com/acme/shop/blob/abc/src/a.php#L12',
  dashboardUrl: 'https://scoreboard.test/reports/r1#issue-f',
  ...overrides,
});

describe('E9.4 ticket title', () => {
  it('names the analyzer and the message on one line', () => {
    expect(ticketTitle(facts({ message: 'two\nlines' }))).toBe('[Scoreboard] PHPStan: two lines');
  });

  it('cuts a long title to 250 characters with an ellipsis', () => {
    const title = ticketTitle(facts({ message: 'x'.repeat(400) }));
    expect(title.length).toBe(TITLE_MAX);
    expect(title.endsWith('…')).toBe(true);
  });

  it('never cuts inside a surrogate pair', () => {
    const prefix = '[Scoreboard] PHPStan: ';
    // The pair would straddle the cut at 249.
    const message = `${'a'.repeat(249 - prefix.length - 1)}${'😀'.repeat(100)}`;
    const title = ticketTitle(facts({ message }));
    expect(title.length).toBeLessThanOrEqual(TITLE_MAX);
    expect(title.endsWith('…')).toBe(true);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(title)).toBe(false);
  });

  it('keeps a title of exactly 250 characters whole', () => {
    const prefix = '[Scoreboard] PHPStan: ';
    const title = ticketTitle(facts({ message: 'y'.repeat(TITLE_MAX - prefix.length) }));
    expect(title.length).toBe(TITLE_MAX);
    expect(title.endsWith('y')).toBe(true);
  });
});

describe('E9.4 ticket body', () => {
  it('renders Markdown with the facts, a linked location, the code, the recommendation and the dashboard link', () => {
    const text = toMarkdown(ticketDocument(facts()));
    expect(text).toContain('- Severity\\: high');
    expect(text).toContain('- Category\\: bugs');
    expect(text).toContain('[src\\/a\\.php\\:12](<https://github.com/acme/shop/blob/abc/src/a.php#L12>)');
    expect(text).toContain('```\n11 | $y = 1;\n12 | echo $x;\n```');
    expect(text).toContain('### Recommendation\n\nDefine \\$x first\\.');
    expect(text).toContain('[View the issue in Scoreboard](<https://scoreboard.test/reports/r1#issue-f>)');
  });

  it('keeps a hostile snippet and message inside their Markdown blocks', () => {
    const text = toMarkdown(
      ticketDocument(facts({ message: '@admin see #12 <img src=x> [a](javascript:x)', snippet: { '1': '```', '2': '````js' } })),
    );
    expect(text).toContain('`````\n1 | ```\n2 | ````js\n`````');
    expect(text).toContain('\\@admin see \\#12 \\<img src\\=x\\> \\[a\\]\\(javascript\\:x\\)');
  });

  it('renders Jira wiki markup with escapes and a code block that a hostile snippet cannot end', () => {
    const text = toWiki(
      ticketDocument(facts({ message: '*bold* [x|http://e] {color:red}', snippet: { '3': '{code}', '4': '{noformat}' } })),
    );
    expect(text).toContain('* Severity: high');
    expect(text).toContain('* Location: [src/a.php:12|https://github.com/acme/shop/blob/abc/src/a.php#L12]');
    expect(text).toContain('\\*bold\\* \\[x\\|http://e\\] \\{color:red\\}');
    expect(text).toContain('h3. Code\n\n{code}\n3 | {\u200bcode}\n4 | {\u200bnoformat}\n{code}');
    expect(text.match(/\{code\}/g)).toHaveLength(2);
    expect(text).toContain('[View the issue in Scoreboard|https://scoreboard.test/reports/r1#issue-f]');
  });

  it('renders Atlassian Document Format: a doc of paragraphs, a bullet list, headings, a code block and link marks', () => {
    const adf = toAdf(ticketDocument(facts({ snippet: { '1': '"}]}' } })));
    expect(adf.version).toBe(1);
    expect(adf.type).toBe('doc');
    expect(adf.content!.map((node) => node.type)).toEqual([
      'paragraph',
      'bulletList',
      'heading',
      'codeBlock',
      'heading',
      'paragraph',
      'paragraph',
    ]);
    const list = adf.content![1]!;
    expect(list.content![3]).toEqual({
      type: 'listItem',
      content: [
        {
          type: 'paragraph',
          content: [
            { type: 'text', text: 'Location: ' },
            {
              type: 'text',
              text: 'src/a.php:12',
              marks: [{ type: 'link', attrs: { href: 'https://github.com/acme/shop/blob/abc/src/a.php#L12' } }],
            },
          ],
        },
      ],
    });
    expect(adf.content![3]).toEqual({ type: 'codeBlock', content: [{ type: 'text', text: '1 | "}]}' }] });
  });

  it('leaves out what the issue does not have', () => {
    const text = toMarkdown(ticketDocument(facts({ category: null, snippet: null, recommendation: '', fileUrl: null, file: null })));
    expect(text).not.toContain('Category');
    expect(text).not.toContain('Location');
    expect(text).not.toContain('```');
    expect(text).not.toContain('Recommendation');
  });
});

describe('E9.4 file links (the dashboard rule)', () => {
  it('links GitHub, GitLab and Bitbucket files at the commit and line', () => {
    expect(fileLink('https://github.com/acme/shop', 'abc', 'src/a b.php', 3)).toBe(
      'https://github.com/acme/shop/blob/abc/src/a%20b.php#L3',
    );
    expect(fileLink('https://gitlab.com/g/sub/p.git', 'abc', 'a.php', 3)).toBe('https://gitlab.com/g/sub/p/-/blob/abc/a.php#L3');
    expect(fileLink('https://bitbucket.org/w/s', 'abc', 'a.php', 3)).toBe('https://bitbucket.org/w/s/src/abc/a.php#lines-3');
  });

  it('gives no link for an unknown host, no commit or no repository', () => {
    expect(fileLink('https://example.com/a/b', 'abc', 'a.php', 1)).toBeNull();
    expect(fileLink('https://github.com/acme/shop', null, 'a.php', 1)).toBeNull();
    expect(fileLink(null, 'abc', 'a.php', 1)).toBeNull();
  });
});
