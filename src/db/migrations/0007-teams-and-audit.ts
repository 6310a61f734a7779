import { sql, type Kysely } from 'kysely';
import { addIdColumn } from '../dialect.js';

/**
 * E4 and E5: personal teams are marked, invitations are stored, and every change leaves an audit event.
 *
 * `teams.personal_team` (0/1, the same on both databases): the team `scoreboard users:create` makes
 * with a user. A personal team cannot be deleted, and it is where a user lands when they lose their
 * current team (E4). Teams stored before are marked by what users:create did then: a team named
 * "<name or email>'s team" owned by that user.
 *
 * `team_invitations`: pending ones only; accepting, declining or cancelling deletes the row (the
 * audit event keeps the history). One per team and email: inviting again replaces it (E4).
 *
 * `audit_events` (E5) has no foreign keys on purpose: an event outlives the user, team or token it
 * names. `user_id` is the user an event concerns when that is not its actor (a token the operator
 * made for them), for `GET /user/audit-events`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('teams')
    .addColumn('personal_team', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`
    update teams set personal_team = 1 where exists (
      select 1 from team_members m join users u on u.id = m.user_id
      where m.team_id = teams.id and m.role = 'owner' and teams.name = coalesce(u.name, u.email) || '''s team'
    )
  `.execute(db);

  await addIdColumn(db, db.schema.createTable('team_invitations'))
    .addColumn('team_id', 'integer', (col) => col.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('invited_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addUniqueConstraint('team_invitations_team_email_unique', ['team_id', 'email'])
    .execute();
  await db.schema.createIndex('team_invitations_email_idx').on('team_invitations').column('email').execute();

  await addIdColumn(db, db.schema.createTable('audit_events'))
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('actor_type', 'text', (col) => col.notNull())
    .addColumn('actor_id', 'integer')
    .addColumn('actor_email', 'text')
    .addColumn('actor_token_id', 'integer')
    .addColumn('target_type', 'text', (col) => col.notNull())
    .addColumn('target_id', 'text')
    .addColumn('team_id', 'integer')
    .addColumn('user_id', 'integer')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('details', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  // The two lists (newest first, by id) and the retention job's cut by age.
  await db.schema.createIndex('audit_events_team_idx').on('audit_events').columns(['team_id', 'id']).execute();
  await db.schema.createIndex('audit_events_actor_idx').on('audit_events').columns(['actor_id', 'id']).execute();
  await db.schema.createIndex('audit_events_user_idx').on('audit_events').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('audit_events_created_idx').on('audit_events').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_events').execute();
  await db.schema.dropTable('team_invitations').execute();
  await db.schema.alterTable('teams').dropColumn('personal_team').execute();
}
