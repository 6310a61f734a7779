import type { ComponentChildren } from 'preact';

/** A wide table's frame: on a narrow screen it scrolls sideways inside this labelled region, not the page. */
export function TableRegion({ labelledBy, children }: { labelledBy: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to scroll (axe: scrollable-region-focusable).
    <section class="table-region" aria-labelledby={labelledBy} tabIndex={0}>
      {children}
    </section>
  );
}
