import { Type, type Static } from 'typebox';
import { NullableString, NullableTimestamp } from '../wire/schemas.js';

/** E4: roles the API hands out; `owner` moves only by transfer. */
export const ASSIGNABLE_ROLES = ['admin', 'member', 'readonly'] as const;
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member'), Type.Literal('readonly')]);
const AssignableRoleInput = Type.Unsafe<AssignableRole>({
  type: 'string',
  enum: [...ASSIGNABLE_ROLES],
  description: '`owner` is given only by a transfer.',
  examples: ['member'],
});

export const TEAM_NAME_MAX = 255;

/** E4's team shape; `role` is the caller's. */
export const Team = Type.Object(
  {
    id: Type.Integer({ examples: [2] }),
    name: Type.String({ examples: ['Acme'] }),
    personal_team: Type.Boolean({ description: 'The team made with the user; it cannot be deleted.' }),
    owner_id: Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      description: 'Null only for a team left without an owner by the operator.',
    }),
    role: Role,
    member_count: Type.Integer(),
    project_count: Type.Integer(),
    created_at: NullableTimestamp(),
  },
  { $id: 'Team' },
);
export type Team = Static<typeof Team>;

/** E4's member shape. */
export const Member = Type.Object(
  {
    id: Type.Integer({ description: 'The user id.' }),
    name: NullableString(),
    email: Type.String({ examples: ['dev@example.com'] }),
    role: Role,
    joined_at: NullableTimestamp(),
  },
  { $id: 'Member' },
);
export type Member = Static<typeof Member>;

/** E4's invitation shape. */
export const Invitation = Type.Object(
  {
    id: Type.Integer(),
    team: Type.Object({ id: Type.Integer(), name: Type.String() }),
    email: Type.String(),
    role: AssignableRoleInput,
    invited_by: Type.Union([Type.Object({ id: Type.Integer(), name: NullableString() }), Type.Null()], {
      description: 'Null once the inviting user has been deleted.',
    }),
    created_at: NullableTimestamp(),
    expires_at: NullableTimestamp('Seven days after it was made.'),
  },
  { $id: 'Invitation' },
);
export type Invitation = Static<typeof Invitation>;

/** E4: `GET /user`. */
export const Profile = Type.Object(
  {
    id: Type.Integer(),
    name: NullableString(),
    email: Type.String(),
    current_team_id: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
    created_at: NullableTimestamp(),
  },
  { $id: 'Profile' },
);
export type Profile = Static<typeof Profile>;

export const ProfileResponse = Type.Object({ data: Profile });
export const UpdateProfileBody = Type.Object(
  { name: Type.String({ maxLength: 255, examples: ['Ada Lovelace'] }) },
  { $id: 'UpdateProfileBody' },
);
export const CurrentTeamBody = Type.Object({ team_id: Type.Integer({ minimum: 1, examples: [2] }) }, { $id: 'CurrentTeamBody' });

export const TeamListResponse = Type.Object({ data: Type.Array(Team) });
export const TeamResponse = Type.Object({ data: Team });
export const TeamWithMembersResponse = Type.Object({ data: Team, members: Type.Array(Member) });
export const TeamBody = Type.Object({ name: Type.String({ maxLength: TEAM_NAME_MAX, examples: ['Acme'] }) }, { $id: 'TeamBody' });
export const CreateTeamResponse = Type.Object({ team: Team, message: Type.String() });

export const InviteBody = Type.Object(
  { email: Type.String({ maxLength: 255, format: 'email', examples: ['new.dev@example.com'] }), role: AssignableRoleInput },
  { $id: 'InviteBody' },
);
export const InvitationResponse = Type.Object({ invitation: Invitation, message: Type.String() });
export const InvitationListResponse = Type.Object({ data: Type.Array(Invitation) });

export const MemberRoleBody = Type.Object({ role: AssignableRoleInput }, { $id: 'MemberRoleBody' });
export const MemberResponse = Type.Object({ data: Member });
export const TransferBody = Type.Object({ user_id: Type.Integer({ minimum: 1, examples: [7] }) }, { $id: 'TransferBody' });

// Path ids are documented as integers and reach the routes as text: anything else is a 404 (E4).
const pathId = (description: string) =>
  Type.Unsafe<string>({ type: 'integer', minimum: 1, description: `${description} Anything else is a 404.` });
export const TeamParams = Type.Object({ team: pathId('Team id.') });
export const MemberParams = Type.Object({ team: pathId('Team id.'), user: pathId('User id of a member.') });
export const TeamInvitationParams = Type.Object({ team: pathId('Team id.'), id: pathId('Invitation id.') });
export const InvitationParams = Type.Object({ id: pathId('Invitation id.') });
