// TEMPORARY stand-in until the renderer lands (do not commit).
import type { Severity } from '../reports/vocabulary.js';
export type CodeHostKind = 'github' | 'gitlab' | 'gitea' | 'bitbucket';
export interface FeedbackIssue {
  severity: Severity;
  analyzerName: string;
  message: string;
  file: string | null;
  line: number | null;
  fileUrl: string | null;
}
export interface FeedbackFacts {
  projectId: string;
  projectName: string;
  reportUrl: string;
  changesUrl: string;
  commit: string | null;
  branch: string | null;
  baseBranch: string | null;
  pullRequest: string | null;
  score: number;
  baselineScore: number | null;
  gate: { passed: boolean; reasons: string[] } | null;
  newCount: number | null;
  fixedCount: number | null;
  newIssues: FeedbackIssue[];
  newIssuesTotal: number;
}
export interface AnnotationIssue {
  severity: Severity;
  analyzerName: string;
  message: string;
  file: string;
  line: number;
}
export interface CheckRunAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'failure' | 'warning' | 'notice';
  title: string;
  message: string;
}
export const commentMarker = (id: string) => `<!-- scoreboard:project:${id} -->`;
export function pullRequestComment(facts: FeedbackFacts, host: CodeHostKind): string {
  return `${commentMarker(facts.projectId)}\nScore ${facts.score} on ${host}\n${facts.newIssues.map((i) => `- ${i.message} ${i.fileUrl}`).join('\n')}\n[changes](${facts.changesUrl})`;
}
export function statusDescription(facts: FeedbackFacts): string {
  return `Score ${facts.score} · ${facts.newCount} new issues · gate ${facts.gate?.passed === false ? `failed: ${facts.gate.reasons[0]}` : 'passed'}`.slice(
    0,
    140,
  );
}
export function checkRunOutput(facts: FeedbackFacts) {
  return { title: `Score ${facts.score}`, summary: pullRequestComment(facts, 'github') };
}
export function checkRunAnnotations(issues: AnnotationIssue[]): CheckRunAnnotation[] {
  return issues.map((i) => ({
    path: i.file,
    start_line: i.line,
    end_line: i.line,
    annotation_level: i.severity === 'critical' || i.severity === 'high' ? 'failure' : i.severity === 'medium' ? 'warning' : 'notice',
    title: i.analyzerName,
    message: i.message,
  }));
}
