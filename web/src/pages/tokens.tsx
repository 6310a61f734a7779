import { useState } from 'preact/hooks';
import { api, call } from '../api/client.js';
import { asProblem, type Problem } from '../api/problems.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { Field } from '../components/field.js';
import { ProblemMessage } from '../components/problem-message.js';
import { ShownOnce } from '../components/shown-once.js';
import { errorsUnder, formatDate } from '../lib/format.js';
import { useApi, usePageTitle } from '../lib/use-api.js';

const ABILITIES = [
  { value: 'read', label: 'Read', hint: 'list and read projects, reports and teams' },
  { value: 'write', label: 'Write', hint: 'create and change projects, upload reports' },
  { value: 'admin', label: 'Admin', hint: 'delete, manage teams, tokens and webhooks' },
] as const;
type Ability = (typeof ABILITIES)[number]['value'];

/** E7 tokens: the person's personal access tokens for the API; a new one shown once; revoke. */
export function TokensPage() {
  usePageTitle('Tokens');
  const tokens = useApi(async () => (await call(api.GET('/api/v1/tokens'))).data, []);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);

  const revoke = async (id: number) => {
    setProblem(null);
    try {
      await call(api.DELETE('/api/v1/tokens/{token}', { params: { path: { token: id } } }));
      tokens.reload();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };

  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">Tokens</h1>
      <p class="lead">
        Personal access tokens let scripts and CI use the API as you: send one as <code>Authorization: Bearer …</code>. The API is
        documented at <a href="/docs">/docs</a>.
      </p>
      {created && (
        <ShownOnce
          title={`Token “${created.name}” created`}
          id="new-token"
          secret={created.secret}
          note="This is the only time the token is shown. Copy it now; if it is lost, revoke it and create another."
        />
      )}
      <div class="columns">
        <div>
          <h2>Your tokens</h2>
          <ProblemMessage problem={tokens.problem ?? problem} />
          {tokens.data?.length === 0 && <p class="empty">You have no tokens. Create one with the form to use the API from a script.</p>}
          {tokens.data && tokens.data.length > 0 && (
            <ul class="cards">
              {tokens.data.map((token) => (
                <li key={token.id} class="card">
                  <h3>{token.name}</h3>
                  <dl class="facts">
                    <div>
                      <dt>Abilities</dt>
                      <dd>{token.abilities.join(', ')}</dd>
                    </div>
                    <div>
                      <dt>Last used</dt>
                      <dd>{formatDate(token.last_used_at, 'Never')}</dd>
                    </div>
                    <div>
                      <dt>Expires</dt>
                      <dd>{formatDate(token.expires_at, 'Never')}</dd>
                    </div>
                  </dl>
                  <ConfirmButton
                    label="Revoke"
                    question={`Revoke “${token.name}”? Programs using it stop working at once.`}
                    onConfirm={() => revoke(token.id)}
                  />
                </li>
              ))}
            </ul>
          )}
        </div>
        <NewTokenForm
          onCreated={(name, secret) => {
            setCreated({ name, secret });
            tokens.reload();
          }}
        />
      </div>
    </section>
  );
}

function NewTokenForm({ onCreated }: { onCreated: (name: string, secret: string) => void }) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const expires = String(data.get('expires_at') ?? '');
    setBusy(true);
    setProblem(null);
    try {
      const body = {
        name: String(data.get('name') ?? ''),
        abilities: data.getAll('abilities').map(String) as Ability[],
        // A date input gives YYYY-MM-DD, which the API reads as 00:00 UTC that day.
        expires_at: expires === '' ? null : expires,
      };
      const answer = await call(api.POST('/api/v1/tokens', { body }));
      form.reset();
      onCreated(answer.token.name, answer.plain_text_token);
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  const abilityErrors = problem ? errorsUnder(problem.fieldErrors, 'abilities') : [];
  return (
    <form class="stack panel" aria-labelledby="new-token-title" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="new-token-title">New token</h2>
      <ProblemMessage problem={problem} />
      <Field name="name" label="Name" problem={problem} hint="What it is for, e.g. CI pipeline.">
        {(attributes) => <input {...attributes} type="text" maxLength={255} required />}
      </Field>
      <fieldset aria-describedby={abilityErrors.length > 0 ? 'abilities-errors' : undefined}>
        <legend>Abilities</legend>
        {ABILITIES.map((ability) => (
          <label key={ability.value} class="check">
            <input type="checkbox" name="abilities" value={ability.value} defaultChecked={ability.value === 'read'} />
            <span>
              {ability.label} <span class="hint">— {ability.hint}</span>
            </span>
          </label>
        ))}
        {abilityErrors.length > 0 && (
          <ul class="field-errors" id="abilities-errors">
            {abilityErrors.map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        )}
      </fieldset>
      <Field name="expires_at" label="Expires on (optional)" problem={problem} hint="Leave empty for a token that does not expire.">
        {(attributes) => <input {...attributes} type="date" />}
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? 'Creating…' : 'Create token'}
      </button>
    </form>
  );
}
