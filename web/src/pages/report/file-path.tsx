import { Fragment } from 'preact';
import { pathSegments } from '../../lib/issue-search.js';

/**
 * A file (and line) as code, with a line-break opportunity after each `/`, so a long path wraps
 * between directories and never inside a name; a link into the repository when there is one.
 */
export function FilePath({ file, line, href }: { file: string; line?: number | null; href?: string | null }) {
  const segments = pathSegments(file);
  const text = (
    <code class="file-path">
      {segments.map((segment, index) => (
        <Fragment key={index}>
          {segment}
          {index < segments.length - 1 && <wbr />}
        </Fragment>
      ))}
      {line !== null && line !== undefined && `:${line}`}
    </code>
  );
  return href ? <a href={href}>{text}</a> : text;
}
