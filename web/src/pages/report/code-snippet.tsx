import { useEffect, useState } from 'preact/hooks';
import type { Token } from '../../lib/highlight.js';
import { type SnippetLanguage, snippetLanguage, snippetLines } from '../../lib/report-view.js';
import type { ReportIssue } from './report-types.js';

type Snippet = NonNullable<ReportIssue['code_snippet']>;

/**
 * An issue's code, closed until asked for: its lines render only once the details open, so a page of
 * issues costs one summary each. PHP and Blade are highlighted by a module loaded on the first
 * opening (lib/highlight.ts, a chunk of its own); until it arrives, and for other files, the lines
 * show plain. Source is text (never HTML); the target line is a <mark>, with words for screen
 * readers as well as the colour.
 */
export function CodeSnippet({ snippet, where, file }: { snippet: Snippet; where: string; file: string | null }) {
  const [opened, setOpened] = useState(false);
  const lines = opened ? snippetLines(snippet.lines, snippet.target_line) : [];
  const language = snippetLanguage(file ?? snippet.file);
  const tokens = useHighlight(opened ? lines.map((line) => line.text) : null, language);
  return (
    <details class="snippet" onToggle={(event) => event.currentTarget.open && setOpened(true)}>
      <summary>
        Code <span class="report-hidden-text">at {where}</span>
      </summary>
      {opened && (
        <pre class="snippet-code" data-language={tokens ? language : undefined}>
          <code>
            {lines.map((line, index) => {
              const text =
                tokens?.[index]?.map((token, at) =>
                  token.className === null ? (
                    token.text
                  ) : (
                    <span key={at} class={token.className}>
                      {token.text}
                    </span>
                  ),
                ) ?? line.text;
              return line.target ? (
                <mark key={line.number} class="snippet-line snippet-target">
                  <span class="report-hidden-text">Target line: </span>
                  <span class="snippet-number">{line.number}</span>
                  <span>{text}</span>
                </mark>
              ) : (
                <span key={line.number} class="snippet-line">
                  <span class="snippet-number">{line.number}</span>
                  <span>{text}</span>
                </span>
              );
            })}
          </code>
        </pre>
      )}
    </details>
  );
}

/** The lines' tokens once the highlighter has loaded; null before, for no lines, or for a language it does not know. */
function useHighlight(lines: string[] | null, language: SnippetLanguage | null): Token[][] | null {
  const [tokens, setTokens] = useState<Token[][] | null>(null);
  const key = lines === null || language === null ? null : lines.join('\n');
  useEffect(() => {
    if (key === null || lines === null || language === null) return;
    let current = true;
    import('../../lib/highlight.js').then(
      ({ highlightLines }) => current && setTokens(highlightLines(lines, language)),
      // Without its colours the snippet is still all there: a failed chunk load is not worth an error.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [key, language]);
  return tokens;
}
