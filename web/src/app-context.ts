import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Profile, Session } from './api/types.js';

/** What every page of a signed-in person may need: who they are, their current team, how to sign out. */
export interface AppState {
  session: Session;
  /** GET /api/v1/user: the current team is here. */
  profile: Profile;
  signOut(): Promise<void>;
  /** After a switch of team (PUT /api/v1/user/current-team answers the new profile). */
  profileChanged(profile: Profile): void;
}

export const AppContext = createContext<AppState | null>(null);

export function useAppState(): AppState {
  const state = useContext(AppContext);
  if (state === null) throw new Error('useAppState() outside a signed-in page');
  return state;
}
