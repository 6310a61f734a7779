import { useState } from 'preact/hooks';
import { api, call } from '../api/client.js';
import { asProblem, type Problem } from '../api/problems.js';
import type { Session } from '../api/types.js';
import { Field } from '../components/field.js';
import { ProblemMessage } from '../components/problem-message.js';
import { usePageTitle } from '../lib/use-api.js';

/** E7 sign-in: email and password; the app then goes to the page the person came for (app.tsx). */
export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => Promise<void> }) {
  usePageTitle('Sign in');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setProblem(null);
    try {
      const body = { email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') };
      const { data } = await call(api.POST('/api/v1/session', { body }), { expect401: true });
      await onSignedIn(data);
    } catch (error) {
      setProblem(asProblem(error));
      setBusy(false);
    }
  };

  return (
    <section class="narrow" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to Scoreboard</h1>
      <form class="stack" onSubmit={(event) => void submit(event)} noValidate>
        <ProblemMessage problem={problem} />
        <Field name="email" label="Email" problem={problem}>
          {(attributes) => <input {...attributes} type="email" autoComplete="username" required />}
        </Field>
        <Field name="password" label="Password" problem={problem}>
          {(attributes) => <input {...attributes} type="password" autoComplete="current-password" required />}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {/* The page cannot tell whether the email has an account (a failed sign-in never says), so
          it names the command for either case. */}
      <p class="hint">
        No account yet? The operator creates one, with its password, by running{' '}
        <code>scoreboard users:create --email you@example.com --password-stdin</code> in the service's folder.
      </p>
      <p class="hint">
        An account without a password, or a password forgotten? <code>scoreboard users:password --email you@example.com</code> sets one.
      </p>
    </section>
  );
}
