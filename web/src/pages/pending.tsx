import { usePageTitle } from '../lib/use-api.js';

/**
 * A page of E7 whose URL exists (reload and links work) but whose content is still to be built:
 * it says so, and points at what works, instead of an error.
 */
export function PendingPage({ title }: { title: string }) {
  usePageTitle(title);
  return (
    <section aria-labelledby="pending-title">
      <h1 id="pending-title">{title}</h1>
      <p>
        This page of the dashboard is not built yet. Everything it will show is already available through the API, documented at{' '}
        <a href="/docs">/docs</a>.
      </p>
      <p>
        <a href="/">Back to projects</a>
      </p>
    </section>
  );
}
