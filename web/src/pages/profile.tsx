import { useState } from 'preact/hooks';
import { api, call } from '../api/client.js';
import { asProblem, type Problem } from '../api/problems.js';
import { useAppState } from '../app-context.js';
import { Field } from '../components/field.js';
import { ProblemMessage } from '../components/problem-message.js';
import { usePageTitle } from '../lib/use-api.js';
import { NotificationSettingsForm } from './notification-settings.js';

/** E7 profile: the person's name, and their password (changing it ends their other sessions); E11.6: their notifications. */
export function ProfilePage() {
  usePageTitle('Profile');
  const { profile } = useAppState();
  return (
    <section class="narrow" aria-labelledby="profile-title">
      <h1 id="profile-title">Profile</h1>
      <p>
        Signed in as <strong>{profile.email}</strong>.
      </p>
      <NameForm />
      <PasswordForm />
      <NotificationSettingsForm />
    </section>
  );
}

/** Submits a form's fields as JSON, and keeps what the answer said (an error, or a sentence of success). */
function useFormSubmit(send: (form: FormData) => Promise<string>) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    setBusy(true);
    setProblem(null);
    setDone(null);
    try {
      setDone(await send(new FormData(form)));
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  return { problem, done, busy, onSubmit: (event: SubmitEvent) => void onSubmit(event) };
}

function NameForm() {
  const { profile, profileChanged } = useAppState();
  const { problem, done, busy, onSubmit } = useFormSubmit(async (form) => {
    const { data } = await call(api.PUT('/api/v1/user', { body: { name: String(form.get('name') ?? '') } }));
    profileChanged(data);
    return 'Your name was saved.';
  });
  return (
    <form class="stack panel" aria-labelledby="name-title" onSubmit={onSubmit} noValidate>
      <h2 id="name-title">Your name</h2>
      <ProblemMessage problem={problem} />
      <Field name="name" label="Name" problem={problem}>
        {(attributes) => (
          <input {...attributes} type="text" maxLength={255} autoComplete="name" defaultValue={profile.name ?? ''} required />
        )}
      </Field>
      {done && <p role="status">{done}</p>}
      <button type="submit" disabled={busy}>
        Save name
      </button>
    </form>
  );
}

function PasswordForm() {
  const { problem, done, busy, onSubmit } = useFormSubmit(async (form) => {
    const body = { current_password: String(form.get('current_password') ?? ''), password: String(form.get('password') ?? '') };
    const { message } = await call(api.PUT('/api/v1/user/password', { body }));
    return message;
  });
  return (
    <form class="stack panel" aria-labelledby="password-title" onSubmit={onSubmit} noValidate>
      <h2 id="password-title">Password</h2>
      <p class="hint">Changing it signs you out everywhere else.</p>
      <ProblemMessage problem={problem} />
      <Field name="current_password" label="Current password" problem={problem}>
        {(attributes) => <input {...attributes} type="password" autoComplete="current-password" required />}
      </Field>
      <Field name="password" label="New password" problem={problem} hint="At least 12 characters.">
        {(attributes) => <input {...attributes} type="password" autoComplete="new-password" minLength={12} required />}
      </Field>
      {done && <p role="status">{done}</p>}
      <button type="submit" disabled={busy}>
        Change password
      </button>
    </form>
  );
}
