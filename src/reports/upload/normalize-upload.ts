import { asObject } from '../../wire/json-values.js';
import type { StoredCodeSnippet, StoredIssue, StoredResult, StoredSuppressedIssue } from '../results/stored-result.js';
import type { IssueInput, ResultInput, SuppressedIssueInput } from './upload.schemas.js';

/**
 * Turns what a PHP sender encodes (CLIENT-WIRE.md "Quirks of a PHP sender") into the canonical
 * stored form: `[]` for an empty object becomes `{}`, a list that kept its keys (`{"1":…,"2":…}`)
 * becomes the list of its values in key order, and a `code_snippet.lines` list becomes an object
 * keyed by line number. Runs after schema validation, so the shapes are known.
 */
export function normalizeResults(results: ResultInput[]): StoredResult[] {
  return results.map((result) => ({
    analyzer_id: result.analyzer_id,
    status: result.status,
    message: result.message ?? '',
    execution_time: result.execution_time ?? 0,
    metadata: asObject(result.metadata),
    issues: listOf(result.issues).map(normalizeIssue),
    suppressed_issues: listOf(result.suppressed_issues).map(normalizeSuppressedIssue),
  }));
}

/** The objects inside `configuration` that PHP sends as `[]` when empty (CLIENT-WIRE.md). */
const CONFIGURATION_OBJECTS = ['categories', 'ignore_errors', 'environment_mapping'] as const;

/** The client's configuration, with its empty objects sent as `[]` stored as `{}`. */
export function normalizeConfiguration(configuration: Record<string, unknown> | [] | null | undefined): Record<string, unknown> {
  const normalized = { ...asObject(configuration) };
  for (const key of CONFIGURATION_OBJECTS) {
    const value = normalized[key];
    if (Array.isArray(value) && value.length === 0) normalized[key] = {};
  }
  return normalized;
}

/**
 * A list, or an object keyed by position: its values in key order. The schema allows only
 * non-negative integer keys, which JavaScript already iterates in ascending numeric order.
 */
function listOf<T>(value: T[] | Record<string, T> | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : Object.values(value);
}

function normalizeIssue(issue: IssueInput): StoredIssue {
  const normalized: StoredIssue = {
    message: issue.message,
    severity: issue.severity,
    recommendation: issue.recommendation ?? '',
    location: normalizeLocation(issue.location),
  };
  if (issue.code_snippet) normalized.code_snippet = normalizeCodeSnippet(issue.code_snippet);
  const metadata = asObject(issue.metadata);
  if (Object.keys(metadata).length > 0) normalized.metadata = metadata;
  return normalized;
}

function normalizeSuppressedIssue(issue: SuppressedIssueInput): StoredSuppressedIssue {
  return { ...normalizeIssue(issue), suppression: asObject(issue.suppression) };
}

/** `line`/`column` are only meaningful from 1 on (the client drops smaller ones; so do we). */
function normalizeLocation(location: IssueInput['location']): StoredIssue['location'] {
  if (!location) return null;
  const normalized: NonNullable<StoredIssue['location']> = { file: location.file };
  // Finite too: JSON reads `1e309` as Infinity, which no stored text can hold (it would read back null).
  if (typeof location.line === 'number' && Number.isFinite(location.line) && location.line >= 1) normalized.line = location.line;
  if (typeof location.column === 'number' && Number.isFinite(location.column) && location.column >= 1) normalized.column = location.column;
  return normalized;
}

function normalizeCodeSnippet(snippet: NonNullable<IssueInput['code_snippet']>): StoredCodeSnippet {
  const lines: Record<string, string> = {};
  // A list is PHP's encoding of an array keyed 0..n-1: its index is the line number.
  for (const [lineNumber, text] of Object.entries(snippet.lines ?? {})) lines[lineNumber] = text ?? '';
  return {
    file: snippet.file ?? null,
    target_line: snippet.target_line ?? null,
    lines,
    context_lines: snippet.context_lines ?? null,
  };
}
