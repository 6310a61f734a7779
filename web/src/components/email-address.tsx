import { Fragment } from 'preact';

/**
 * An email that wraps where a reader expects it to (before the "@" and before each "." of its
 * domain), not in the middle of a name; a single part wider than the screen still breaks (CSS).
 */
export function EmailAddress({ email }: { email: string }) {
  const at = email.lastIndexOf('@');
  if (at <= 0) return <span class="email">{email}</span>;
  const [first, ...rest] = email.slice(at + 1).split('.');
  return (
    <span class="email">
      {email.slice(0, at)}
      <wbr />@{first}
      {rest.map((part, index) => (
        <Fragment key={index}>
          <wbr />.{part}
        </Fragment>
      ))}
    </span>
  );
}
