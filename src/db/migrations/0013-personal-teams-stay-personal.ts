import { type Kysely, sql } from 'kysely';

/**
 * D34 on what earlier releases stored: they let a personal team be transferred, and `users:delete`
 * then removed its new owner like any member, leaving teams with no owner (some with no member at
 * all) whose project tokens still uploaded. This repairs every team, deterministically:
 *
 * 1. A team with members but no owner: its longest-standing admin becomes owner, else its
 *    longest-standing member, else its longest-standing readonly member (ties: the lower user id).
 *    Someone must be able to manage the team and its project tokens; the role closest to owner
 *    gets it, and the audit log says so (`team.transferred`, actor `operator`: who runs `migrate`).
 * 2. A team with no member at all: deleted, with its projects and their reports (cascades). Nobody
 *    can see or manage it any more, and it could only come to be through its last user's deletion,
 *    which would have taken their personal team with it (`users:delete`).
 * 3. A personal team whose owner is not its user (its owner joined after another member, or not
 *    when the team was made): a transfer happened, so the team stays with its owner as a shared
 *    team. Its user, when still a member, gets a new empty personal team if they own none, so that
 *    E4's fallback (the personal team as current team) holds for them as for everyone else.
 *
 * A personal team's user is not stored: it is the member who was there when the team was made
 * (`users:create` writes the team and that membership in one transaction), and no one joined
 * before them. `down` changes nothing: the repaired rows are not worth breaking again.
 */

/** How far apart `users:create` may have stamped a team and its first membership (two clock reads). */
const SAME_MOMENT_MS = 60_000;
const ROLE_RANK: Record<string, number> = { owner: 0, admin: 1, member: 2, readonly: 3 };

interface Membership {
  team_id: number;
  user_id: number;
  role: string;
  created_at: string;
}

export async function up(db: Kysely<any>): Promise<void> {
  const at = new Date().toISOString();
  const audit = (action: string, teamId: number, details: Record<string, unknown>, userId: number | null = null) =>
    db
      .insertInto('audit_events')
      .values({
        action,
        actor_type: 'operator',
        target_type: 'team',
        target_id: String(teamId),
        team_id: teamId,
        user_id: userId,
        details: JSON.stringify({ ...details, reason: 'D34 repair (migration 0013)' }),
        created_at: at,
      })
      .execute();

  // 1. An owner for every team that has members but none.
  const ownerless: Membership[] = await db
    .selectFrom('team_members as m')
    .select(['m.team_id', 'm.user_id', 'm.role', 'm.created_at'])
    .orderBy('m.team_id')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(selectFrom('team_members as o').select('o.user_id').whereRef('o.team_id', '=', 'm.team_id').where('o.role', '=', 'owner')),
      ),
    )
    .execute();
  for (const [teamId, members] of groupByTeam(ownerless)) {
    const heir = members.sort(byRank)[0]!;
    await db.updateTable('team_members').set({ role: 'owner' }).where('team_id', '=', teamId).where('user_id', '=', heir.user_id).execute();
    await audit('team.transferred', teamId, { owner_id: { old: null, new: heir.user_id } }, heir.user_id);
  }

  // 2. No member, no team.
  const empty = await db
    .selectFrom('teams as t')
    .select(['t.id', 't.name', 't.projects_count'])
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('team_members as m').select('m.user_id').whereRef('m.team_id', '=', 't.id'))),
    )
    .orderBy('t.id')
    .execute();
  for (const team of empty) {
    await db.deleteFrom('teams').where('id', '=', team.id).execute();
    await audit('team.deleted', team.id, { name: team.name, project_count: Number(team.projects_count), member_count: 0 });
  }

  // 3. A personal team is its user's or becomes shared; at most one per user.
  const personalTeams: Array<{ id: number; created_at: string }> = await db
    .selectFrom('teams')
    .select(['id', 'created_at'])
    .where('personal_team', '=', 1)
    .orderBy('id')
    .execute();
  const personalMembers: Membership[] = await db
    .selectFrom('team_members as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select(['m.team_id', 'm.user_id', 'm.role', 'm.created_at'])
    .where('t.personal_team', '=', 1)
    .execute();
  const membersOf = groupByTeam(personalMembers);
  const keptFor = new Set<number>();
  const lostTheirs: number[] = [];
  for (const team of personalTeams) {
    const members = (membersOf.get(team.id) ?? []).sort(byJoining);
    const atCreation = (member: Membership | undefined) =>
      member !== undefined && Math.abs(Date.parse(member.created_at) - Date.parse(team.created_at)) <= SAME_MOMENT_MS;
    // Its user joined first: nobody strictly before them (a tie is not a transfer).
    const first = members.filter((member) => member.created_at === members[0]?.created_at);
    const owner = first.find((member) => member.role === 'owner');
    if (atCreation(owner) && !keptFor.has(owner!.user_id)) {
      keptFor.add(owner!.user_id);
      continue;
    }
    await db.updateTable('teams').set({ personal_team: 0 }).where('id', '=', team.id).execute();
    await audit('team.updated', team.id, { personal_team: { old: true, new: false } });
    const user = owner ? undefined : first[0];
    if (atCreation(user)) lostTheirs.push(user!.user_id);
  }

  for (const userId of lostTheirs) {
    if (keptFor.has(userId)) continue;
    const person = await db
      .selectFrom('users')
      .select(['email', 'name', 'current_team_id'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const name = `${person.name ?? person.email}'s team`;
    const { id } = await db
      .insertInto('teams')
      .values({ name, personal_team: 1, created_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db.insertInto('team_members').values({ team_id: id, user_id: userId, role: 'owner', created_at: at }).execute();
    if (person.current_team_id === null) await db.updateTable('users').set({ current_team_id: id }).where('id', '=', userId).execute();
    await audit('team.created', id, { name, personal_team: true }, userId);
    keptFor.add(userId);
  }
  // Users whose current team was deleted in step 2 fall back like E4 says (personal team, or none).
  if (empty.length === 0) return;
  await db
    .updateTable('users')
    .set({
      current_team_id: sql`(
        select t.id from team_members m join teams t on t.id = m.team_id
        where m.user_id = users.id and m.role = 'owner' and t.personal_team = 1
        order by t.id limit 1
      )`,
    })
    .where(
      'current_team_id',
      'in',
      empty.map((team) => team.id),
    )
    .execute();
}

export async function down(): Promise<void> {}

function groupByTeam(rows: Membership[]): Map<number, Membership[]> {
  const teams = new Map<number, Membership[]>();
  for (const row of rows) teams.set(row.team_id, [...(teams.get(row.team_id) ?? []), row]);
  return teams;
}

function byJoining(a: Membership, b: Membership): number {
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.user_id - b.user_id;
}

function byRank(a: Membership, b: Membership): number {
  return (ROLE_RANK[a.role] ?? 9) - (ROLE_RANK[b.role] ?? 9) || byJoining(a, b);
}
