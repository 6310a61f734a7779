import { Type, type Static } from 'typebox';
import { invalidField } from '../wire/api-error.js';
import { Nullable, NullableString } from '../wire/schemas.js';
import { FAIL_ON_LEVELS } from '../reports/vocabulary.js';

export { FAIL_ON_LEVELS } from '../reports/vocabulary.js';

/** D14: the ticket providers that `primary_tracker` may name besides `internal`. */
export const TICKET_PROVIDERS = ['jira', 'linear', 'github', 'gitlab'] as const;

const nullableEnum = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T | null>({ type: ['string', 'null'], enum: [...values, null], description });

const settingsFields = {
  fail_on: nullableEnum(FAIL_ON_LEVELS, 'Severity at or above which a failed analyzer fails the CI gate.'),
  fail_threshold: Nullable<number>('integer', { minimum: 0, maximum: 100, description: 'Minimum score to pass.' }),
  primary_tracker: nullableEnum(['internal', ...TICKET_PROVIDERS], '`internal` or a ticket provider.'),
  ticket_target_project_key: NullableString({ maxLength: 100, description: 'Required when primary_tracker is a ticket provider.' }),
  ticket_target_project_name: NullableString({ maxLength: 255 }),
  fail_on_new: nullableEnum(FAIL_ON_LEVELS, 'Severity at or above which a new issue fails the CI gate.'),
};

/** D14 and E1.7: every project response carries all six keys, null where unset. */
export const ProjectSettings = Type.Object(settingsFields, { $id: 'ProjectSettings' });
export type ProjectSettings = Static<typeof ProjectSettings>;

/** D13: on update each given key replaces the stored one; absent keys keep their value. */
export const ProjectSettingsInput = Type.Partial(Type.Object(settingsFields), { $id: 'ProjectSettingsInput' });
export type ProjectSettingsInput = Static<typeof ProjectSettingsInput>;

export const DEFAULT_SETTINGS: ProjectSettings = Object.freeze({
  fail_on: null,
  fail_threshold: null,
  primary_tracker: null,
  ticket_target_project_key: null,
  ticket_target_project_name: null,
  fail_on_new: null,
});

/** The settings' keys, in the order of ProjectSettings (and of every answer). */
export const SETTINGS_KEYS = Object.keys(settingsFields) as (keyof ProjectSettings)[];

export function parseStoredSettings(json: string): ProjectSettings {
  const stored = JSON.parse(json) as Partial<ProjectSettings>;
  return { ...DEFAULT_SETTINGS, ...pickKnown(stored) };
}

/** D13: merge, then validate the result as a whole (the per-field rules already ran on the input). */
export function mergeSettings(current: ProjectSettings, input: ProjectSettingsInput): ProjectSettings {
  const merged = { ...current, ...pickKnown(input) };
  const tracker = merged.primary_tracker;
  if (tracker !== null && (TICKET_PROVIDERS as readonly string[]).includes(tracker) && !merged.ticket_target_project_key) {
    throw invalidField(
      'settings.ticket_target_project_key',
      `The settings.ticket target project key field is required when settings.primary tracker is ${tracker}.`,
    );
  }
  return merged;
}

function pickKnown(values: Partial<ProjectSettings>): Partial<ProjectSettings> {
  const known: Partial<ProjectSettings> = {};
  for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof ProjectSettings)[]) {
    if (values[key] !== undefined) (known as Record<string, unknown>)[key] = values[key];
  }
  return known;
}
