import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { withQuery } from '../../lib/report-view.js';

/** How long typing pauses before the list follows: each keystroke of a fast typist does not filter 4,000 issues. */
const SEARCH_DELAY_MS = 200;

/**
 * The search field of an issue list. What is typed goes into the URL (`?q=`) once typing pauses,
 * replacing the history entry rather than adding one per word; back or a reload gives it back.
 */
export function SearchBox({ id, label }: { id: string; label: string }) {
  const { path, query, route } = useLocation();
  const search = query.q ?? '';
  const [text, setText] = useState(search);
  // The value this field last put in the URL: a URL change that is not ours (back, a tab) resets the field.
  const sent = useRef(search);

  useEffect(() => {
    if (search !== sent.current) {
      sent.current = search;
      setText(search);
    }
  }, [search]);

  useEffect(() => {
    if (text === search) return;
    const timer = setTimeout(() => {
      sent.current = text;
      // User Timing: from here to the list's `scoreboard:issues-shown` is what a search costs the page.
      performance.mark('scoreboard:search-sent', { detail: { search: text } });
      route(withQuery(path, query, { q: text.trim() === '' ? null : text, page: null }), true);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);

  return (
    <div class="field report-search">
      <label for={id}>{label}</label>
      <input id={id} type="search" value={text} onInput={(event) => setText(event.currentTarget.value)} autoComplete="off" />
    </div>
  );
}
