import { CopyButton } from './copy-button.js';

/** A secret the API gives once (a token): shown with a copy button and a warning that it will not be shown again. */
export function ShownOnce({ title, secret, id, note }: { title: string; secret: string; id: string; note: string }) {
  return (
    <div class="notice" role="status">
      <h2>{title}</h2>
      <p>{note}</p>
      <p class="token">
        <code id={id}>{secret}</code>
      </p>
      <CopyButton text={secret} label="Copy token" />
    </div>
  );
}
