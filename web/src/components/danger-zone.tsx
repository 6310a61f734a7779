import type { ComponentChildren } from 'preact';

/**
 * What cannot be taken back (delete, archive, a new token that breaks the old one), set apart at a
 * page's end under one heading, each action behind a ConfirmButton: never among the content.
 */
export function DangerZone({ id, children }: { id: string; children: ComponentChildren }) {
  return (
    <section class="panel stack danger-zone" aria-labelledby={id}>
      <h2 id={id} class="danger-zone-title">
        Danger zone
      </h2>
      {children}
    </section>
  );
}
