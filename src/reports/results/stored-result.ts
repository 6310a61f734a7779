import type { ResultStatus, Severity } from '../vocabulary.js';

/**
 * The canonical form of a report's results, as stored (JSON) and read back. Whatever encoding the
 * client used (CLIENT-WIRE.md "Quirks of a PHP sender"), uploads are normalised to this first.
 */
export interface StoredResult {
  analyzer_id: string;
  status: ResultStatus;
  message: string;
  /** Seconds. */
  execution_time: number;
  /** The analyzer's own description as the client sent it (`{}` when it sent none). */
  metadata: Record<string, unknown>;
  issues: StoredIssue[];
  suppressed_issues: StoredSuppressedIssue[];
}

export interface StoredIssue {
  message: string;
  severity: Severity;
  recommendation: string;
  location: { file: string; line?: number; column?: number } | null;
  /** Only when the client sent one. */
  code_snippet?: StoredCodeSnippet;
  /** Only when the client sent a non-empty one. */
  metadata?: Record<string, unknown>;
}

export interface StoredCodeSnippet {
  file: string | null;
  target_line: number | null;
  /** Line number -> text. */
  lines: Record<string, string>;
  context_lines: number | null;
}

export interface StoredSuppressedIssue extends StoredIssue {
  suppression: Record<string, unknown>;
}
