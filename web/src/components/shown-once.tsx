import { CopyButton } from './copy-button.js';

interface ShownOnceProps {
  title: string;
  secret: string;
  id: string;
  note: string;
  /** What the copy button names: a token unless told (a webhook's is a secret). */
  copyLabel?: string;
  /** The title's level under the headings around it: 3 in a project's webhooks, 4 in one webhook's card. */
  level?: 2 | 3 | 4;
}

/** A secret the API gives once (a token): shown with a copy button and a warning that it will not be shown again. */
export function ShownOnce({ title, secret, id, note, copyLabel = 'Copy token', level = 2 }: ShownOnceProps) {
  const Heading = (['h2', 'h3', 'h4'] as const)[level - 2]!;
  return (
    <div class="notice" role="status">
      <Heading>{title}</Heading>
      <p>{note}</p>
      <p class="token">
        <code id={id}>{secret}</code>
      </p>
      <CopyButton text={secret} label={copyLabel} />
    </div>
  );
}
