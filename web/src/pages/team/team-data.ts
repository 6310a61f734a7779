import { api, call } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import type { AppState } from '../../app-context.js';

export type Member = components['schemas']['Member'];
export type Invitation = components['schemas']['Invitation'];

/** A member's name for people: their name, else their email. */
export function memberName(member: Member): string {
  return member.name ?? member.email;
}

/**
 * After the person leaves or deletes a team, or creates one, the current team may have changed on
 * the server (E4): the app's profile is read again so that the navigation and projects follow.
 */
export async function refreshProfile(state: AppState): Promise<void> {
  const { data } = await call(api.GET('/api/v1/user'));
  state.profileChanged(data);
}
