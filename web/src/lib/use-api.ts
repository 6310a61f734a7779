import { useCallback, useEffect, useState } from 'preact/hooks';
import { asProblem, type Problem } from '../api/problems.js';

export interface Loaded<T> {
  data: T | undefined;
  problem: Problem | null;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads what a page shows, again whenever `deps` change; a later load's answer replaces an earlier
 * one's, never the reverse. What was loaded for other `deps` is never shown as this one's (a team's
 * audit log under another team's title): until the new answer arrives there is no data, only
 * `loading`. A `reload` with the same `deps` keeps showing the current data meanwhile.
 */
export function useApi<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const key = JSON.stringify(deps);
  const [state, setState] = useState<{ key: string | null; data: T | undefined; problem: Problem | null; loading: boolean }>({
    key: null,
    data: undefined,
    problem: null,
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  // `load` is a new closure on every render: `deps` say when what it loads changes.
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ key, data, problem: null, loading: false }),
      (error: unknown) => current && setState({ key, data: undefined, problem: asProblem(error), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  const fresh = state.key === key;
  return { data: fresh ? state.data : undefined, problem: fresh ? state.problem : null, loading: state.loading || !fresh, reload };
}

/** Sets the window's title for the page being shown. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Scoreboard`;
  }, [title]);
}
