import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import type { components } from '../../api/schema.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { Field } from '../../components/field.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { ShownOnce } from '../../components/shown-once.js';
import { errorsUnder, formatDate } from '../../lib/format.js';
import { WEBHOOK_EVENTS, WEBHOOK_FORMAT_LABELS, WEBHOOK_FORMATS } from '../../lib/project-page.js';
import { useApi } from '../../lib/use-api.js';
import { WebhookDeliveries } from './webhook-deliveries.js';

type Webhook = components['schemas']['Webhook'];
type WebhookEvent = Webhook['events'][number];
type WebhookFormat = Webhook['format'];

/**
 * The project's webhooks (E6): each with its last delivery, a ping, its deliveries (each sent again
 * on request), a new signing secret on request, and delete; and
 * a form for a new one, whose signing secret is shown once. Only the team's owners and admins may
 * see them: for anyone else the API answers 404 and the section is left out.
 */
export function WebhookList({ projectId }: { projectId: string }) {
  const webhooks = useApi(
    async () => (await call(api.GET('/api/v1/projects/{project}/webhooks', { params: { path: { project: projectId } } }))).data,
    [projectId],
  );
  const [secret, setSecret] = useState<string | null>(null);
  if (webhooks.problem?.status === 404 || webhooks.problem?.status === 403) return null;
  return (
    <section class="panel stack" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <ProblemMessage problem={webhooks.problem} />
      {secret && (
        <ShownOnce
          title="The webhook’s signing secret"
          secret={secret}
          id="webhook-secret"
          note="This is the only time the secret is shown. The receiver checks each request's signature with it."
          copyLabel="Copy secret"
          level={3}
        />
      )}
      {webhooks.data?.length === 0 && <p class="empty">No webhooks yet. Add one below to be told of new reports, failed gates and runs.</p>}
      {webhooks.data && webhooks.data.length > 0 && (
        <ul class="cards">
          {webhooks.data.map((webhook) => (
            <WebhookCard key={webhook.id} projectId={projectId} webhook={webhook} onChanged={webhooks.reload} />
          ))}
        </ul>
      )}
      <NewWebhookForm
        projectId={projectId}
        onCreated={(created) => {
          setSecret(created);
          webhooks.reload();
        }}
      />
    </section>
  );
}

function WebhookCard({ projectId, webhook, onChanged }: { projectId: string; webhook: Webhook; onChanged: () => void }) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [status, setStatus] = useState('');
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [rotated, setRotated] = useState<string | null>(null);
  const path = { params: { path: { project: projectId, webhook: webhook.id } } };
  const last = webhook.last_delivery;

  const ping = async () => {
    setProblem(null);
    try {
      await call(api.POST('/api/v1/projects/{project}/webhooks/{webhook}/ping', path));
      setStatus('Ping queued: see the deliveries.');
      setShowDeliveries(true);
    } catch (error) {
      setProblem(asProblem(error));
    }
  };
  const rotate = async () => {
    setProblem(null);
    setStatus('');
    try {
      setRotated((await call(api.POST('/api/v1/projects/{project}/webhooks/{webhook}/rotate-secret', path))).secret);
    } catch (error) {
      setProblem(asProblem(error));
    }
  };
  const remove = async () => {
    setProblem(null);
    try {
      await call(api.DELETE('/api/v1/projects/{project}/webhooks/{webhook}', path));
      onChanged();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };
  return (
    <li class="card webhook">
      <h3>{webhook.url}</h3>
      {webhook.description && <p>{webhook.description}</p>}
      <dl class="facts">
        <div>
          <dt>Events</dt>
          <dd>{webhook.events.join(', ')}</dd>
        </div>
        <div>
          <dt>Format</dt>
          <dd>{WEBHOOK_FORMAT_LABELS[webhook.format]}</dd>
        </div>
        <div>
          <dt>Active</dt>
          <dd>{webhook.active ? 'Yes' : 'No'}</dd>
        </div>
        <div>
          <dt>Last delivery</dt>
          <dd>
            {last === null
              ? 'None yet'
              : `${last.status}${last.response_status === null ? '' : ` (HTTP ${last.response_status})`}, ${formatDate(last.at)}`}
          </dd>
        </div>
      </dl>
      {rotated && (
        <ShownOnce
          title="The webhook’s new signing secret"
          secret={rotated}
          id={`webhook-secret-${webhook.id}`}
          note="This is the only time the new secret is shown. For the next 24 hours every request is signed with both the old and the new secret, so the receiver keeps working while you switch it to the new one."
          copyLabel="Copy new secret"
          level={4}
        />
      )}
      <ProblemMessage problem={problem} />
      <p role="status">{status}</p>
      <div class="webhook-actions">
        <button type="button" class="secondary" onClick={() => void ping()}>
          Send ping
        </button>
        <button type="button" class="secondary" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>
          {showDeliveries ? 'Hide deliveries' : 'Show deliveries'}
        </button>
        <ConfirmButton
          label="Rotate secret"
          question="Issue a new signing secret? The old one keeps being sent, beside the new one, for 24 hours."
          onConfirm={rotate}
          danger={false}
        />
        <ConfirmButton label="Delete webhook" question={`Delete the webhook to ${webhook.url}?`} onConfirm={remove} />
      </div>
      {showDeliveries && <WebhookDeliveries projectId={projectId} webhookId={webhook.id} url={webhook.url} />}
    </li>
  );
}

/**
 * The address policy as the service applies it (E6): an IP literal in a refused range or
 * `localhost` is refused when the webhook is made, a name is judged at each delivery (after DNS),
 * and the operator's WEBHOOK_ALLOW_PRIVATE_NETWORKS lifts both.
 */
const URL_HINT =
  'An http or https address. Unless the server allows private networks (WEBHOOK_ALLOW_PRIVATE_NETWORKS), ' +
  'localhost and loopback or private IP addresses are refused here, and deliveries to a name that resolves to one fail.';

function NewWebhookForm({ projectId, onCreated }: { projectId: string; onCreated: (secret: string) => void }) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const description = String(data.get('description') ?? '').trim();
    setBusy(true);
    setProblem(null);
    try {
      const created = await call(
        api.POST('/api/v1/projects/{project}/webhooks', {
          params: { path: { project: projectId } },
          body: {
            url: String(data.get('url') ?? '').trim(),
            events: data.getAll('events').map(String) as WebhookEvent[],
            description: description === '' ? null : description,
            format: String(data.get('format') ?? 'standard') as WebhookFormat,
          },
        }),
      );
      form.reset();
      onCreated(created.secret);
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  const eventErrors = problem === null ? [] : errorsUnder(problem.fieldErrors, 'events');
  const descriptionErrors = problem?.fieldErrors.description ?? [];
  const formatErrors = problem?.fieldErrors.format ?? [];
  return (
    <form class="stack new-webhook" aria-labelledby="new-webhook-title" onSubmit={(event) => void submit(event)} noValidate>
      <h3 id="new-webhook-title">New webhook</h3>
      <ProblemMessage problem={problem} />
      <Field name="url" label="URL" problem={problem} hint={URL_HINT}>
        {(attributes) => <input {...attributes} type="url" maxLength={2048} required />}
      </Field>
      <fieldset aria-describedby={eventErrors.length > 0 ? 'webhook-events-errors' : undefined}>
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((name) => (
          <label key={name} class="check">
            <input type="checkbox" name="events" value={name} defaultChecked={name === 'report.gate_failed'} /> {name}
          </label>
        ))}
        {eventErrors.length > 0 && (
          <ul class="field-errors" id="webhook-events-errors">
            {eventErrors.map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        )}
      </fieldset>
      <div class="field">
        <label for="webhook-format">Format</label>
        <select
          id="webhook-format"
          name="format"
          defaultValue="standard"
          aria-invalid={formatErrors.length > 0}
          aria-describedby={formatErrors.length > 0 ? 'webhook-format-hint webhook-format-errors' : 'webhook-format-hint'}
        >
          {WEBHOOK_FORMATS.map((format) => (
            <option key={format} value={format}>
              {WEBHOOK_FORMAT_LABELS[format]}
            </option>
          ))}
        </select>
        <p class="hint" id="webhook-format-hint">
          Standard sends the signed JSON event for your own receiver. The others post a message in words to a chat service's incoming
          webhook: Slack or Mattermost, a Microsoft Teams workflow, or Discord.
        </p>
        {formatErrors.length > 0 && (
          <ul class="field-errors" id="webhook-format-errors">
            {formatErrors.map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        )}
      </div>
      {/* Not <Field>: its id would be the settings form's project description's (`field-description`). */}
      <div class="field">
        <label for="webhook-description">Description (optional)</label>
        <input
          id="webhook-description"
          name="description"
          type="text"
          maxLength={1000}
          aria-invalid={descriptionErrors.length > 0}
          aria-describedby={descriptionErrors.length > 0 ? 'webhook-description-errors' : undefined}
        />
        {descriptionErrors.length > 0 && (
          <ul class="field-errors" id="webhook-description-errors">
            {descriptionErrors.map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        )}
      </div>
      <div>
        <button type="submit" disabled={busy}>
          Add webhook
        </button>
      </div>
    </form>
  );
}
