import type { ComponentChildren } from 'preact';

/** A wide table's frame, named by `label`: on a narrow screen it scrolls sideways inside itself, not the page. */
export function ScrollRegion({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to scroll (axe: scrollable-region-focusable).
    <section class="table-region" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
