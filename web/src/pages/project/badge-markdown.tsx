import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { asProblem, type Problem } from '../../api/problems.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { CopyButton } from '../../components/copy-button.js';
import { ProblemMessage } from '../../components/problem-message.js';
import { badgeMarkdown } from '../../lib/project-page.js';
import { useApi } from '../../lib/use-api.js';

/**
 * The project's public badges (E2.2/E2.3) as Markdown for a README, with a preview. Anyone with
 * their URL sees the score and gate: regenerating the key is how to take them back.
 */
export function BadgeMarkdown({ projectId }: { projectId: string }) {
  const path = { params: { path: { project: projectId } } };
  const badges = useApi(async () => (await call(api.GET('/api/v1/projects/{project}/badges', path))).data, [projectId]);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [regenerated, setRegenerated] = useState(false);

  const regenerate = async () => {
    setProblem(null);
    setRegenerated(false);
    try {
      await call(api.POST('/api/v1/projects/{project}/badges/regenerate', path));
      setRegenerated(true);
      badges.reload();
    } catch (error) {
      setProblem(asProblem(error));
    }
  };
  const markdown = badges.data && badgeMarkdown(badges.data);
  return (
    <section class="panel stack" aria-labelledby="badges-title">
      <h2 id="badges-title">Badges</h2>
      <ProblemMessage problem={badges.problem ?? problem} />
      {badges.data && markdown && (
        <>
          <p>Paste these into the project's README to show its latest score and quality gate:</p>
          <div class="badge-row">
            <img src={badges.data.score_svg} alt="Score badge" height={20} />
            <pre>
              <code>{markdown.score}</code>
            </pre>
            <CopyButton text={markdown.score} label="Copy score badge" />
          </div>
          <div class="badge-row">
            <img src={badges.data.gate_svg} alt="Quality gate badge" height={20} />
            <pre>
              <code>{markdown.gate}</code>
            </pre>
            <CopyButton text={markdown.gate} label="Copy gate badge" />
          </div>
          {regenerated && <p role="status">New badge URLs: the old ones no longer work. Update the README.</p>}
          <div class="action">
            <p>Anyone with these URLs sees the score and gate. A new key makes the current URLs stop working.</p>
            <ConfirmButton
              label="Regenerate badge key"
              question="Regenerate the badge key? READMEs with the old URLs will show broken images."
              onConfirm={regenerate}
            />
          </div>
        </>
      )}
    </section>
  );
}
