import type { ComponentChildren } from 'preact';

/**
 * A wide table's frame, named by `label` or by the element `labelledBy` names: on a narrow screen
 * it scrolls sideways inside itself, not the page, and takes the keyboard's focus so that it can.
 */
export function ScrollRegion({
  label,
  labelledBy,
  children,
}: { children: ComponentChildren } & ({ label: string; labelledBy?: never } | { labelledBy: string; label?: never })) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to scroll (axe: scrollable-region-focusable).
    <section class="table-region" aria-label={label} aria-labelledby={labelledBy} tabIndex={0}>
      {children}
    </section>
  );
}
