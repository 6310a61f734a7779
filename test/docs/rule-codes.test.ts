import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 30, item 7: the README and docs/ stand alone. Every rule code the code cites (`D15`, `E1.4`,
 * in comments too) has an entry in docs/ whose heading holds it, so `grep -rw D15 src docs` lands on
 * its explanation; no Markdown file points outside the repository (the contract documents are not in
 * a clone); and every relative link resolves, anchors included, so the README's links to those
 * entries keep working when a heading changes.
 */
const ROOT = resolve(import.meta.dirname, '../..');

/** A rule code as a whole word, as `grep -w "[DE][0-9]\+\(\.[0-9]\+\)\?"` finds it. */
const RULE_CODE = /(?<![A-Za-z0-9_])[DE]\d+(?:\.\d+)?(?![A-Za-z0-9_])/g;

function filesUnder(folder: string, keep: (file: string) => boolean): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((file) => statSync(file).isFile() && keep(file))
    .sort();
}

const at = (file: string) => relative(ROOT, file).split(sep).join('/');
const read = (file: string) => readFileSync(file, 'utf8');

const SOURCES = filesUnder(join(ROOT, 'src'), () => true);
const DOCS = filesUnder(join(ROOT, 'docs'), (file) => file.endsWith('.md'));
const MARKDOWN = [join(ROOT, 'README.md'), ...DOCS];

/** The codes `text` mentions. */
const codesIn = (text: string) => new Set(text.match(RULE_CODE) ?? []);

/** `text` without its fenced code blocks (their lines blanked, so line numbers stay). */
function prose(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

const headingsOf = (text: string) => [...prose(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)].map((match) => match[1]!);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces made hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of headingsOf(text)) {
    const rendered = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The inline links of `text`'s prose, with the line each is on (code spans are not links). */
function linksOf(text: string): { target: string; line: number }[] {
  return prose(text)
    .split('\n')
    .flatMap((line, index) =>
      [...line.replace(/`[^`]*`/g, 'code').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => ({
        target: match[1]!,
        line: index + 1,
      })),
    );
}

/**
 * Each code that `files` mention, with the first place that mentions it. In Markdown only the prose
 * counts: a code block or span may hold a placeholder that looks like a code (`--new-email E2`).
 */
function citations(files: readonly string[]): Map<string, string> {
  const cited = new Map<string, string>();
  for (const file of files) {
    const text = read(file);
    const lines = (file.endsWith('.md') ? prose(text).replace(/`[^`\n]*`/g, 'code') : text).split('\n');
    lines.forEach((line, index) => {
      for (const code of codesIn(line)) if (!cited.has(code)) cited.set(code, `${at(file)}:${index + 1}`);
    });
  }
  return cited;
}

/** The codes that have an entry: a heading in docs/ that holds the code as a word. */
const explained = new Set(DOCS.flatMap((file) => headingsOf(read(file)).flatMap((heading) => [...codesIn(heading)])));

describe('rule codes (issue 30, item 7)', () => {
  it('reads the codes src/ cites, comments included', () => {
    const cited = citations(SOURCES);
    expect(SOURCES.length).toBeGreaterThan(150);
    // A sample of what `grep -ohw "[DE][0-9]\+\(\.[0-9]\+\)\?" -r src` lists, to show the reading works.
    for (const code of ['D1', 'D4.6', 'D15', 'D40', 'E1', 'E1.4', 'E2.3', 'E7']) expect(cited.has(code), code).toBe(true);
  });

  it('explains every code cited in src/ in a heading of docs/', () => {
    const missing = [...citations(SOURCES)].filter(([code]) => !explained.has(code)).map(([code, where]) => `${code} (${where})`);
    expect(missing, 'rule codes cited in src/ without a heading in docs/ that holds them').toEqual([]);
  });

  it('explains every code the README and docs/ use', () => {
    const missing = [...citations(MARKDOWN)].filter(([code]) => !explained.has(code)).map(([code, where]) => `${code} (${where})`);
    expect(missing, 'rule codes used in Markdown without a heading in docs/ that holds them').toEqual([]);
  });

  it('explains D37, which work in progress is about to cite', () => {
    expect(explained.has('D37')).toBe(true);
  });
});

describe('the README and docs/ stand alone (issue 30, item 7)', () => {
  it('name no file outside the repository', () => {
    const outside = MARKDOWN.flatMap((file) =>
      read(file)
        .split('\n')
        .map((line, index) => ({ line, where: `${at(file)}:${index + 1}` }))
        .filter(({ line }) => line.includes('../shared') || line.includes('shared/spec'))
        .map(({ where, line }) => `${where}: ${line.trim()}`),
    );
    expect(outside).toEqual([]);
  });

  it('link only to files of the repository that exist, and to headings that exist', () => {
    const broken: string[] = [];
    for (const file of MARKDOWN) {
      const text = read(file);
      for (const { target, line } of linksOf(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const where = `${at(file)}:${line}: ${target}`;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const linked = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        if (linked !== ROOT && !linked.startsWith(ROOT + sep)) broken.push(`${where} (outside the repository)`);
        else if (!existsSync(linked)) broken.push(`${where} (no such file)`);
        else if (anchor !== undefined && linked.endsWith('.md') && !anchorsOf(read(linked)).has(anchor))
          broken.push(`${where} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('docs/architecture.md links to the rules', () => {
    expect(linksOf(read(join(ROOT, 'docs/architecture.md'))).some(({ target }) => target.startsWith('rules.md'))).toBe(true);
  });
});
