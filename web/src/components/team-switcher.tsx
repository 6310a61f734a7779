import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call } from '../api/client.js';
import { asProblem, type Problem } from '../api/problems.js';
import type { AppState } from '../app-context.js';
import { useApi } from '../lib/use-api.js';

/** The current team, which the projects page and new projects belong to; switching it is PUT /api/v1/user/current-team. */
export function TeamSwitcher({ state }: { state: AppState }) {
  const teams = useApi(async () => (await call(api.GET('/api/v1/teams'))).data, []);
  const [problem, setProblem] = useState<Problem | null>(null);
  // A team created or left in another page changes the current team (E4): the list is read again
  // then, and stays shown meanwhile (a reload keeps it), so the select keeps its focus.
  const currentTeam = state.profile.current_team_id;
  const listedFor = useRef(currentTeam);
  useEffect(() => {
    if (listedFor.current === currentTeam) return;
    listedFor.current = currentTeam;
    teams.reload();
  }, [currentTeam]);
  if (teams.data === undefined || teams.data.length === 0) return null;

  const switchTo = async (teamId: number) => {
    setProblem(null);
    try {
      await switchCurrentTeam(state, teamId);
    } catch (error) {
      setProblem(asProblem(error));
    }
  };
  return (
    <div class="team-switcher">
      <label for="team-switcher">Team</label>
      <select
        id="team-switcher"
        value={String(state.profile.current_team_id ?? '')}
        onChange={(event) => void switchTo(Number(event.currentTarget.value))}
      >
        {state.profile.current_team_id === null && <option value="">No team</option>}
        {teams.data.map((team) => (
          <option key={team.id} value={String(team.id)}>
            {team.name}
          </option>
        ))}
      </select>
      {problem && (
        <span class="problem" role="alert">
          {problem.message}
        </span>
      )}
    </div>
  );
}

/** Makes `teamId` the current team (E4); every page that shows the current team's things follows. */
export async function switchCurrentTeam(state: Pick<AppState, 'profileChanged'>, teamId: number): Promise<void> {
  const { data } = await call(api.PUT('/api/v1/user/current-team', { body: { team_id: teamId } }));
  state.profileChanged(data);
}
