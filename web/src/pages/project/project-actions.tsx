import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import type { Project } from '../../api/types.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DangerZone } from '../../components/danger-zone.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { ShownOnce } from '../../components/shown-once.js';

/** What changes a project as a whole and cannot be taken back: a new API token, archiving (no more uploads), deleting it with its reports. */
export function ProjectActions({ project, onChanged }: { project: Project; onChanged: () => void }) {
  const { route } = useLocation();
  const [problem, setProblem] = useState<Problem | null>(null);
  const [token, setToken] = useState<string | null>(null);
  const path = { params: { path: { project: project.id } } };

  const act = (work: () => Promise<void>) => async () => {
    setProblem(null);
    try {
      await work();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };
  const archived = project.archived_at !== null;
  return (
    <DangerZone id="danger-title">
      <ProblemMessage problem={problem} />
      {token && (
        <ShownOnce
          title="New API token"
          id="regenerated-token"
          secret={token}
          note="This is the only time the token is shown. The old token no longer works: put this one in the client's .env (SHIELDCI_TOKEN)."
        />
      )}
      <div class="action">
        <p>A new API token for the client package; the current one stops working at once.</p>
        <ConfirmButton
          label="Regenerate token"
          question="Regenerate the token? Clients still using the old one will be refused."
          onConfirm={act(async () => setToken((await call(api.POST('/api/v1/projects/{project}/regenerate-token', path))).api_token))}
        />
      </div>
      <div class="action">
        <p>
          {archived
            ? 'Archived: the project accepts no reports. Unarchive it to accept them again.'
            : 'Archive: keep the reports, accept no new ones.'}
        </p>
        {archived ? (
          <button
            type="button"
            onClick={act(async () => {
              await call(api.POST('/api/v1/projects/{project}/unarchive', path));
              onChanged();
            })}
          >
            Unarchive
          </button>
        ) : (
          <ConfirmButton
            label="Archive"
            question="Archive the project? Its uploads will be refused."
            danger={false}
            onConfirm={act(async () => {
              await call(api.POST('/api/v1/projects/{project}/archive', path));
              onChanged();
            })}
          />
        )}
      </div>
      <div class="action">
        <p>Delete the project with all its reports. This cannot be undone.</p>
        <ConfirmButton
          label="Delete project"
          question={`Delete “${project.name}” and all its reports?`}
          onConfirm={act(async () => {
            await call(api.DELETE('/api/v1/projects/{project}', path));
            route('/');
          })}
        />
      </div>
    </DangerZone>
  );
}
