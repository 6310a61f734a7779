import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import type { paths } from '../../api/schema.js';
import type { Project } from '../../api/types.js';
import { Field, type FieldAttributes } from '../../components/field.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { FAIL_ON_LEVELS } from '../../../../src/reports/vocabulary.js';

const FRAMEWORK_VERSIONS = ['13', '12', '11', '10', '9'] as const;
type ProjectUpdate = paths['/api/v1/projects/{project}']['put']['requestBody']['content']['application/json'];
type Settings = NonNullable<ProjectUpdate['settings']>;

/** An empty field is "not set" (null), which the API reads as the default. */
const orNull = (value: FormDataEntryValue | null): string | null =>
  value === null || String(value).trim() === '' ? null : String(value).trim();

/**
 * The project's settings and its quality gate (D13/D14, E1.7): every key of the gate sent, the API's
 * messages shown at their fields (`settings.fail_threshold`...). The tracker's settings have their
 * own form (tracker-settings.tsx); D13 merges settings key by key, so each form leaves the other's alone.
 */
export function GateSettings({ project, onSaved }: { project: Project; onSaved: () => void }) {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const settings = project.settings;

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const threshold = orNull(form.get('settings.fail_threshold'));
    const next: Settings = {
      fail_on: orNull(form.get('settings.fail_on')) as Settings['fail_on'],
      // A number as typed: the API says at the field when it is not a whole number from 0 to 100.
      fail_threshold: threshold === null ? null : Number(threshold),
      fail_on_new: orNull(form.get('settings.fail_on_new')) as Settings['fail_on_new'],
    };
    setBusy(true);
    setProblem(null);
    setSaved(false);
    try {
      const body: ProjectUpdate = {
        name: String(form.get('name') ?? ''),
        framework_version: String(form.get('framework_version')) as ProjectUpdate['framework_version'],
        repository_url: orNull(form.get('repository_url')),
        description: orNull(form.get('description')),
        settings: next,
      };
      await call(api.PUT('/api/v1/projects/{project}', { params: { path: { project: project.id } }, body }));
      setSaved(true);
      onSaved();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="panel stack" aria-labelledby="settings-title" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="settings-title">Settings and quality gate</h2>
      <ProblemMessage problem={problem} />
      <div class="form-grid">
        <Field name="name" label="Name" problem={problem}>
          {(attributes) => <input {...attributes} type="text" maxLength={255} defaultValue={project.name} required />}
        </Field>
        <Field name="framework_version" label="Laravel version" problem={problem}>
          {(attributes) => (
            <select {...attributes}>
              {FRAMEWORK_VERSIONS.map((version) => (
                <option key={version} value={version} selected={version === project.framework_version}>
                  {version}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field name="repository_url" label="Repository URL" problem={problem}>
          {(attributes) => <input {...attributes} type="url" maxLength={500} defaultValue={project.repository_url ?? ''} />}
        </Field>
        <Field name="description" label="Description" problem={problem}>
          {(attributes) => <input {...attributes} type="text" maxLength={1000} defaultValue={project.description ?? ''} />}
        </Field>
        <Field
          name="settings.fail_on"
          label="Fail on a failed analyzer’s issue of"
          problem={problem}
          hint="This severity or above fails the gate."
        >
          {(attributes) => <LevelSelect attributes={attributes} value={settings.fail_on} />}
        </Field>
        <Field
          name="settings.fail_on_new"
          label="Fail on a new issue of"
          problem={problem}
          hint="This severity or above, new since the baseline."
        >
          {(attributes) => <LevelSelect attributes={attributes} value={settings.fail_on_new} />}
        </Field>
        <Field name="settings.fail_threshold" label="Minimum score" problem={problem} hint="0 to 100; empty: no minimum.">
          {(attributes) => (
            <input {...attributes} type="number" inputMode="numeric" defaultValue={settings.fail_threshold?.toString() ?? ''} />
          )}
        </Field>
      </div>
      {saved && <p role="status">The settings were saved.</p>}
      <div>
        <button type="submit" disabled={busy}>
          Save settings
        </button>
      </div>
    </form>
  );
}

function LevelSelect({ attributes, value }: { attributes: FieldAttributes; value: string | null }) {
  return (
    <select {...attributes}>
      <option value="">Not set</option>
      {FAIL_ON_LEVELS.map((level) => (
        <option key={level} value={level} selected={level === value}>
          {level}
        </option>
      ))}
    </select>
  );
}
