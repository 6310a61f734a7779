import { useState } from 'preact/hooks';
import { snippetLines } from '../../lib/report-view.js';
import type { ReportIssue } from './report-types.js';

type Snippet = NonNullable<ReportIssue['code_snippet']>;

/**
 * An issue's code, closed until asked for: its lines render only once the details open, so a page of
 * issues costs one summary each. Source is text (never HTML); the target line is a <mark>, with words
 * for screen readers as well as the colour.
 */
export function CodeSnippet({ snippet, where }: { snippet: Snippet; where: string }) {
  const [opened, setOpened] = useState(false);
  return (
    <details class="snippet" onToggle={(event) => event.currentTarget.open && setOpened(true)}>
      <summary>
        Code <span class="report-hidden-text">at {where}</span>
      </summary>
      {opened && (
        <pre class="snippet-code">
          <code>
            {snippetLines(snippet.lines, snippet.target_line).map((line) =>
              line.target ? (
                <mark key={line.number} class="snippet-line snippet-target">
                  <span class="report-hidden-text">Target line: </span>
                  <span class="snippet-number">{line.number}</span>
                  {line.text}
                </mark>
              ) : (
                <span key={line.number} class="snippet-line">
                  <span class="snippet-number">{line.number}</span>
                  {line.text}
                </span>
              ),
            )}
          </code>
        </pre>
      )}
    </details>
  );
}
