import { useCallback, useEffect, useState } from 'preact/hooks';
import { asProblem, type Problem } from '../api/problems.js';

export interface Loaded<T> {
  data: T | undefined;
  problem: Problem | null;
  loading: boolean;
  reload: () => void;
}

/** Loads what a page shows, again whenever `deps` change; a later load's answer replaces an earlier one's, never the reverse. */
export function useApi<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; problem: Problem | null; loading: boolean }>({
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
      (data) => current && setState({ data, problem: null, loading: false }),
      (error: unknown) => current && setState({ data: undefined, problem: asProblem(error), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}

/** Sets the window's title for the page being shown. */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Scoreboard`;
  }, [title]);
}
