/** E3: `?format=` of `GET /reports/{report}/export`, and how each is sent. */
export const EXPORT_FORMATS = ['sarif', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = {
  // SARIF 2.1.0 Appendix: the registered type. A +json type has no charset parameter (RFC 8259: UTF-8).
  sarif: 'application/sarif+json',
  csv: 'text/csv; charset=utf-8',
};

/**
 * E3: "a file name carrying the report uuid". A uuid and a fixed extension, so the name never
 * needs quoting rules beyond the plain `filename="..."` of RFC 6266.
 */
export function exportFileName(reportUuid: string, format: ExportFormat): string {
  return `scoreboard-${reportUuid}.${format}`;
}

/** E3: the OASIS schema the log declares and is tested against (test/fixtures/sarif/). */
export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/** The key of our fingerprint among a result's `partialFingerprints`: versioned, as SARIF 3.27.17 asks. */
export const FINGERPRINT_KEY = 'scoreboard/v1';
