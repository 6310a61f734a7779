import { describe, expect, it } from 'vitest';
import { canChangeRole, canDeleteTeam, canRemove, canTransfer, managesTeam } from '../../web/src/lib/team-roles.js';

const ME = 1;
const owner = { id: 2, role: 'owner' as const };
const otherAdmin = { id: 3, role: 'admin' as const };
const member = { id: 4, role: 'member' as const };
const readonly = { id: 5, role: 'readonly' as const };

describe('the team page’s role rules (E4)', () => {
  it('lets owner and admin manage the team, and only the owner transfer it', () => {
    expect(['owner', 'admin', 'member', 'readonly'].map((role) => managesTeam(role as 'owner'))).toEqual([true, true, false, false]);
    expect(canTransfer({ role: 'owner', personal_team: false })).toBe(true);
    expect(canTransfer({ role: 'admin', personal_team: false })).toBe(false);
  });

  it('never offers to transfer a personal team (D34)', () => {
    expect(canTransfer({ role: 'owner', personal_team: true })).toBe(false);
  });

  it('deletes only a team the caller owns that is not a personal team', () => {
    expect(canDeleteTeam({ role: 'owner', personal_team: false })).toBe(true);
    expect(canDeleteTeam({ role: 'owner', personal_team: true })).toBe(false);
    expect(canDeleteTeam({ role: 'admin', personal_team: false })).toBe(false);
  });

  it('changes roles: never the owner’s; an admin not another admin’s, but their own', () => {
    expect(canChangeRole('owner', ME, otherAdmin)).toBe(true);
    expect(canChangeRole('owner', ME, member)).toBe(true);
    expect(canChangeRole('owner', owner.id, owner)).toBe(false);
    expect(canChangeRole('admin', ME, owner)).toBe(false);
    expect(canChangeRole('admin', ME, otherAdmin)).toBe(false);
    expect(canChangeRole('admin', ME, { id: ME, role: 'admin' })).toBe(true);
    expect(canChangeRole('admin', ME, readonly)).toBe(true);
    expect(canChangeRole('member', ME, readonly)).toBe(false);
  });

  it('removes: never the owner; anyone may leave; an admin not another admin', () => {
    expect(canRemove('owner', owner.id, owner)).toBe(false);
    expect(canRemove('admin', ME, owner)).toBe(false);
    expect(canRemove('readonly', ME, { id: ME, role: 'readonly' })).toBe(true);
    expect(canRemove('member', ME, readonly)).toBe(false);
    expect(canRemove('admin', ME, member)).toBe(true);
    expect(canRemove('admin', ME, otherAdmin)).toBe(false);
    expect(canRemove('owner', ME, otherAdmin)).toBe(true);
  });
});
