import type { Clock } from '../clock.js';
import type { RepositoriesOn } from '../repositories.js';
import type { Db } from '../db/database.js';
import type { Plan, TeamRole } from '../db/schema.js';
import type { Ability } from '../auth/abilities.js';
import { createTokensService } from '../tokens/tokens.service.js';
import type { UserRow } from './accounts.repository.js';

/** An operator mistake (unknown user, duplicate email...): the CLI prints the message and exits 1. */
export class OperatorError extends Error {}

export const PLANS = ['solo', 'business', 'enterprise'] as const satisfies readonly Plan[];
export const ROLES = ['owner', 'admin', 'member', 'readonly'] as const satisfies readonly TeamRole[];

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** D20: accounts are managed by the operator command, through these functions. */
export function createAccountsService(deps: { db: Db; clock: Clock; repositories: RepositoriesOn }) {
  const { db, clock, repositories } = deps;
  const tokensService = createTokensService(deps);
  const now = () => clock.now().toISOString();

  async function requireUser(email: string): Promise<UserRow> {
    const user = await repositories(db).accounts.findUserByEmail(normalizeEmail(email));
    if (!user) throw new OperatorError(`No user with email ${email}.`);
    return user;
  }

  return {
    /** A user, their personal team (unless `withTeam` is false), a subscription and a first token. */
    async createUser(input: {
      email: string;
      name: string | null;
      plan: Plan | null;
      withTeam: boolean;
      abilities: Ability[];
    }): Promise<{ user: { id: number; email: string }; team: { id: number } | null; token: string }> {
      const email = normalizeEmail(input.email);
      if (!EMAIL.test(email)) throw new OperatorError(`"${input.email}" is not an email address.`);
      // One transaction: a user never exists without the team, subscription and token they were promised.
      return db.transaction().execute(async (trx) => {
        const accounts = repositories(trx).accounts;
        if (await accounts.findUserByEmail(email)) throw new OperatorError(`A user with email ${email} already exists.`);
        const user = await accounts.insertUser({ email, name: input.name, created_at: now() });
        let teamId: number | null = null;
        if (input.withTeam) {
          teamId = await accounts.insertTeam({ name: `${input.name ?? email}'s team`, created_at: now(), personal_team: true });
          await accounts.putMembership({ team_id: teamId, user_id: user.id, role: 'owner', created_at: now() });
          await accounts.setCurrentTeam(user.id, teamId);
        }
        if (input.plan) await accounts.putSubscription(user.id, input.plan, now());
        const { plainText } = await createTokensService({ db: trx, clock, repositories }).createToken(
          user.id,
          { name: 'CLI token', abilities: input.abilities, expiresAt: null },
          { enforceLimit: false },
        );
        return { user: { id: user.id, email: user.email }, team: teamId === null ? null : { id: teamId }, token: plainText };
      });
    },

    async createToken(input: { email: string; name: string; abilities: Ability[]; expiresAt: Date | null }) {
      const user = await requireUser(input.email);
      const { token, plainText } = await tokensService.createToken(
        user.id,
        { name: input.name, abilities: input.abilities, expiresAt: input.expiresAt },
        { enforceLimit: false },
      );
      return { id: token.id, token: plainText };
    },

    /** `null` ends the subscription: the user keeps their data but loses the project API (D7). */
    async setPlan(email: string, plan: Plan | null): Promise<void> {
      const user = await requireUser(email);
      const accounts = repositories(db).accounts;
      if (plan) await accounts.putSubscription(user.id, plan, now());
      else await accounts.cancelSubscription(user.id, now());
    },

    async createTeam(ownerEmail: string, name: string): Promise<{ id: number }> {
      const owner = await requireUser(ownerEmail);
      const id = await db.transaction().execute(async (trx) => {
        const accounts = repositories(trx).accounts;
        const teamId = await accounts.insertTeam({ name, created_at: now() });
        await accounts.putMembership({ team_id: teamId, user_id: owner.id, role: 'owner', created_at: now() });
        await accounts.setCurrentTeam(owner.id, teamId);
        return teamId;
      });
      return { id };
    },

    async addMember(teamId: number, email: string, role: TeamRole): Promise<void> {
      const user = await requireUser(email);
      const accounts = repositories(db).accounts;
      if (!(await accounts.teamExists(teamId))) throw new OperatorError(`No team with id ${teamId}.`);
      await accounts.putMembership({ team_id: teamId, user_id: user.id, role, created_at: now() });
    },

    async switchTeam(email: string, teamId: number): Promise<void> {
      const user = await requireUser(email);
      const accounts = repositories(db).accounts;
      if (!(await accounts.findRole(teamId, user.id))) {
        throw new OperatorError(`${user.email} is not a member of team ${teamId}.`);
      }
      await accounts.setCurrentTeam(user.id, teamId);
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;

/** Emails are stored and compared trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
