/**
 * E3: an issue's file as a SARIF `artifactLocation`. The client sends paths relative to the
 * application (CLIENT-WIRE.md), as text; SARIF wants a URI reference (`format: uri-reference` in
 * the schema), which code-scanning uploaders resolve against the repository they check out.
 */

/** The base every relative file is resolved against (SARIF 3.4.4; GitHub resolves it to the checkout). */
export const SOURCE_ROOT = '%SRCROOT%';

export interface ArtifactLocation {
  uri: string;
  uriBaseId?: string;
}

/**
 * - Backslashes become slashes: a client on Windows writes `app\Http\Kernel.php`, and a URI's
 *   separator is `/` (a backslash in a Unix file name is rare enough to give up).
 * - A leading `./` names the same file, so it goes: code-scanning matches alerts across runs by
 *   path, and `./app/X.php` and `app/X.php` must be one file.
 * - Every segment is percent-encoded as UTF-8 (spaces, `#`, `?`, `%`, `:`, non-ASCII...), so the
 *   URI names exactly the file sent. Encoding `:` also keeps a first segment such as `c:x` from
 *   reading as a URI scheme.
 * - An absolute path (`/srv/app/X.php`, `C:\app\X.php`) is not relative to anything: stripping its
 *   slash would name a file that does not exist under the repository root, so it becomes a
 *   `file://` URI without a base, the truth, which uploaders make relative to their checkout when
 *   it lies inside it.
 * - A path with nothing left (`""`, `./`) names no file: null.
 */
export function artifactLocationOf(file: string): ArtifactLocation | null {
  let path = wellFormed(file).replace(/\\/g, '/');
  const drive = /^[A-Za-z]:\//.exec(path)?.[0];
  if (drive !== undefined) return { uri: `file:///${drive}${encodePath(path.slice(drive.length))}` };
  if (path.startsWith('/')) return { uri: `file://${encodePath(path)}` };
  while (path.startsWith('./')) path = path.slice(2);
  if (path === '' || path === '.') return null;
  return { uri: encodePath(path), uriBaseId: SOURCE_ROOT };
}

/**
 * Lone surrogates (JSON text may carry them) would make encodeURIComponent throw: each becomes
 * U+FFFD, as a UTF-8 encoder writes it (String.prototype.toWellFormed, which ES2022 types lack).
 */
function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** Each segment encoded on its own, the slashes between them kept. */
function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
