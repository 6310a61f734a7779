import { readFileSync } from 'node:fs';
import type { Severity } from '../vocabulary.js';
import { artifactLocationOf, SOURCE_ROOT } from './artifact-uri.js';
import { FINGERPRINT_KEY, SARIF_SCHEMA_URI } from './export-formats.js';
import { documentInPieces } from './export-pieces.js';
import type { SuppressedItem } from '../results/suppressed-issues.js';
import type { ExportStates } from './export-states.js';
import { EXPORT_BATCH_SIZE, type ExportAnalyzer, type ExportIssue } from './export-rows.js';
import { sarifRule, type AnalyzerHelp } from './sarif-rules.js';

/** E3: critical and high are errors, medium a warning, low and info notes. */
export const SARIF_LEVELS: Record<Severity, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'note',
};

/**
 * Where an issue that names no file is shown. SARIF allows a result without locations, but GitHub's
 * code scanning refuses the whole upload when any result has none ("expected at least one
 * location"), and E3 asks for a log code-scanning uploaders accept. Such issues are about the
 * application as a whole (configuration, dependencies, environment), so they are shown at the
 * manifest every application the client analyses has at its root, with no line, and the location
 * says why. The CSV export leaves their file empty.
 */
export const NO_FILE_LOCATION = {
  physicalLocation: { artifactLocation: { uri: 'composer.json', uriBaseId: SOURCE_ROOT } },
  message: { text: 'This issue names no file; it is shown at the application root.' },
};

// Read once: package.json sits three levels above both src/reports/export/ and dist/reports/export/.
const SCOREBOARD_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

/** What the log says about the run besides its results. */
export interface SarifRunContext {
  report: { uuid: string; analyzed_at: string; git_branch: string | null; git_commit: string | null; package_version: string | null };
  /** The rules: the analyzers of the report's issues, then those only its suppressed issues have. */
  analyzers: readonly ExportAnalyzer[];
  help: ReadonlyMap<string, AnalyzerHelp>;
  /** E8.7: the issues the client suppressed, listed after the report's own. */
  suppressed: readonly SuppressedItem[];
  /** E8.7: the dismissals in force at export time. */
  states: Pick<ExportStates, 'dismissalOf'>;
}

/**
 * A SARIF 2.1.0 log with one run, as text, piece by piece (export-pieces.ts): everything up to the
 * results first (the rules are known by then), then the results (the report's issues, then the
 * client's suppressed issues, E8.7), then the closing brackets.
 */
export function sarifLog(context: SarifRunContext, batches: AsyncIterable<readonly ExportIssue[]>): AsyncGenerator<string> {
  const { report } = context;
  const rules = context.analyzers.map((analyzer) => sarifRule(analyzer, context.help.get(analyzer.analyzer_id)));
  const ruleIndex = new Map(rules.map((rule, index) => [rule.id, index]));
  const skeleton = JSON.stringify({
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'Scoreboard', version: SCOREBOARD_VERSION, rules } },
        properties: {
          report: report.uuid,
          analyzed_at: report.analyzed_at,
          branch: report.git_branch,
          commit: report.git_commit,
          client_version: report.package_version,
        },
        // Last key of the last run: the text ends with `[]}]}`, and the results go between the brackets.
        results: [],
      },
    ],
  });
  return documentInPieces<ExportIssue | SuppressedItem>(
    skeleton.slice(0, -4),
    resultsThenSuppressed(batches, context.suppressed),
    (entry, index) =>
      `${index === 0 ? '' : ','}${JSON.stringify(
        'suppression' in entry
          ? suppressedResult(entry, ruleIndex)
          : sarifResult(entry, ruleIndex, context.states.dismissalOf(entry.fingerprint)),
      )}`,
    skeleton.slice(-4),
  );
}

async function* resultsThenSuppressed(
  batches: AsyncIterable<readonly ExportIssue[]>,
  suppressed: readonly SuppressedItem[],
): AsyncGenerator<readonly (ExportIssue | SuppressedItem)[]> {
  yield* batches;
  for (let start = 0; start < suppressed.length; start += EXPORT_BATCH_SIZE) yield suppressed.slice(start, start + EXPORT_BATCH_SIZE);
}

/**
 * SARIF 3.35.3: a suppression's `status` says whether it was accepted; E8.7 states it for a
 * dismissal, and a suppression the client applied is in force just the same, so both say
 * `accepted` (GitHub's code scanning, for one, closes such an alert rather than showing it open).
 */
const SUPPRESSION_ACCEPTED = 'accepted';

/** One SARIF result for one issue; E8.7: under a dismissal in force, an external suppression saying which and why. */
export function sarifResult(
  issue: ExportIssue,
  ruleIndex: ReadonlyMap<string, number>,
  dismissal: { status: string; comment: string | null } | null = null,
) {
  const index = ruleIndex.get(issue.analyzer_id);
  return {
    ruleId: issue.analyzer_id,
    ...(index !== undefined && { ruleIndex: index }),
    level: SARIF_LEVELS[issue.severity],
    // An empty message is allowed by the upload; a result without text helps nobody.
    message: { text: issue.message.trim() === '' ? issue.analyzer_name : issue.message },
    locations: [locationOf(issue)],
    partialFingerprints: { [FINGERPRINT_KEY]: issue.fingerprint },
    // E1.5's change is SARIF's own baseline state; without a baseline there is none to state.
    ...(issue.change !== null && { baselineState: issue.change }),
    ...(dismissal !== null && {
      suppressions: [
        {
          kind: 'external',
          status: SUPPRESSION_ACCEPTED,
          // E8.2 asks a comment of every dismissal; a state without one still says which it is.
          justification: dismissal.comment === null ? dismissal.status : `${dismissal.status}: ${dismissal.comment}`,
        },
      ],
    }),
    properties: { severity: issue.severity, ...(issue.category !== null && { category: issue.category }) },
  };
}

/**
 * E8.7: one SARIF result for an issue the client suppressed: `inSource` for an inline comment,
 * `external` for its configuration or baseline (and for a type the client may send one day: SARIF
 * requires a kind, and it is not in the code), the description as justification when there is
 * one. Suppressed issues have no fingerprint (E1.2) and no change against the baseline.
 */
export function suppressedResult(item: SuppressedItem, ruleIndex: ReadonlyMap<string, number>) {
  const index = ruleIndex.get(item.analyzer_id);
  const { type, description } = item.suppression;
  return {
    ruleId: item.analyzer_id,
    ...(index !== undefined && { ruleIndex: index }),
    level: SARIF_LEVELS[item.severity],
    message: { text: item.message.trim() === '' ? item.analyzer_name : item.message },
    locations: [
      locationOf({
        file: item.location?.file ?? null,
        line: item.location?.line ?? null,
        column_number: item.location?.column ?? null,
      }),
    ],
    suppressions: [
      {
        kind: type === 'inline' ? 'inSource' : 'external',
        status: SUPPRESSION_ACCEPTED,
        ...(description !== null && description.trim() !== '' && { justification: description }),
      },
    ],
    properties: {
      severity: item.severity,
      ...(item.category !== null && { category: item.category }),
      ...(type !== null && { suppression_type: type }),
    },
  };
}

function locationOf(issue: Pick<ExportIssue, 'file' | 'line' | 'column_number'>) {
  const artifactLocation = issue.file === null ? null : artifactLocationOf(issue.file);
  if (artifactLocation === null) return NO_FILE_LOCATION;
  // No line, no region: a region needs its start line, and a column alone points nowhere.
  const region =
    issue.line === null ? undefined : { startLine: issue.line, ...(issue.column_number !== null && { startColumn: issue.column_number }) };
  return { physicalLocation: { artifactLocation, ...(region && { region }) } };
}
