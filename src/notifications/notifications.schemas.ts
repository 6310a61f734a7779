import { type Static, Type } from 'typebox';
import { MUTED_PROJECTS_MAX, NEW_ISSUES_LEVELS, type NewIssuesLevel } from './notification-vocabulary.js';

/** The HTTP face of each user's notification choices. */

const Level = (options: { description: string }) =>
  Type.Unsafe<NewIssuesLevel>({ type: 'string', enum: [...NEW_ISSUES_LEVELS], examples: ['high'], ...options });

const MUTED_DESCRIPTION = 'Projects whose events never notify this user: ids of projects of their teams.';

export const NotificationSettings = Type.Object(
  {
    gate_failed: Type.Boolean({ description: "Email when a branch's gate starts failing, and when it passes again." }),
    new_issues: Level({ description: 'Email when a report brings new issues of this severity or above; `none` turns it off.' }),
    weekly_digest: Type.Boolean({ description: "A weekly summary of the user's projects." }),
    assigned: Type.Boolean({ description: 'Email when someone else assigns an issue to the user.' }),
    muted_projects: Type.Array(Type.String({ format: 'uuid' }), { description: MUTED_DESCRIPTION }),
    email_available: Type.Boolean({
      description: 'Whether this server sends email at all; when false the choices are kept but nothing is sent.',
    }),
  },
  { $id: 'NotificationSettings' },
);
export type NotificationSettingsView = Static<typeof NotificationSettings>;
export const NotificationSettingsResponse = Type.Object({ data: NotificationSettings });

export const UpdateNotificationSettingsBody = Type.Object(
  {
    // No `default`s here: the validator would fill them in, and a field left out must keep its value.
    gate_failed: Type.Optional(Type.Boolean({ description: 'True for a user who never chose.' })),
    new_issues: Type.Optional(Level({ description: '`critical` for a user who never chose.' })),
    weekly_digest: Type.Optional(Type.Boolean({ description: 'False for a user who never chose.' })),
    assigned: Type.Optional(Type.Boolean({ description: 'True for a user who never chose.' })),
    muted_projects: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: MUTED_PROJECTS_MAX,
        description: `The whole list (it replaces the stored one): at most ${MUTED_PROJECTS_MAX} ids of projects of the caller's teams; duplicates count once.`,
        examples: [['01934f6e-7c1a-7b3e-9f00-3c5d2e1a4b6c']],
      }),
    ),
  },
  {
    $id: 'UpdateNotificationSettingsBody',
    description: 'Every field is optional: a field left out keeps its stored value.',
  },
);
export type UpdateNotificationSettingsBody = Static<typeof UpdateNotificationSettingsBody>;
