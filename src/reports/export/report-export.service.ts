import { Readable } from 'node:stream';
import type { Clock } from '../../clock.js';
import type { Db } from '../../db/database.js';
import { notFound } from '../../wire/api-error.js';
import type { HeavyWork } from '../threads/heavy-work.js';
import type { ReportRow } from '../store/report-rows.js';
import { csvDocument } from './csv-export.js';
import type { ExportFormat } from './export-formats.js';
import { issueBatches, primed } from './export-rows.js';
import { sarifLog } from './sarif-export.js';
import { createReportStore } from '../store/report-store.js';
import { createExportRowsRepository, type ExportRowsRepository } from './export-rows.js';
import { exportStatesOf } from './export-states.js';
import { analyzersWithSuppressed } from './sarif-sources.js';

/**
 * How much text the stream holds before it stops asking for more (its highWaterMark); the piece
 * being pushed comes on top. Node's pipe then waits for the socket, so a client that stops reading
 * stops the export: what it costs is this, a piece (export-pieces.ts), a batch of rows
 * (EXPORT_BATCH_CHARS) and the socket's own buffer: under D33's 1 MiB (0.7 MiB measured with
 * 60,000-character messages, test/reports/stalled-readers.test.ts).
 */
const STREAM_BUFFER_BYTES = 64 * 1024;

/**
 * E3: a report's issues as a SARIF log or a CSV file, streamed. Whatever can fail before the first
 * byte (the states, the rules query, the first batch) runs before the stream is returned, so such a
 * failure is an ordinary error answer; the rest is read batch by batch as the client takes it.
 * E8.7: each issue's state is as of the moment the export starts (the service clock).
 */
export function createReportExportService(deps: { db: Db; clock: Clock; heavyWork: HeavyWork; rows?: ExportRowsRepository }) {
  // `rows`: the export's reads, when a test watches them.
  const rows = deps.rows ?? createExportRowsRepository(deps.db);
  const reports = createReportStore(deps.db);

  return {
    async open(report: ReportRow, format: ExportFormat): Promise<Readable> {
      const states = await exportStatesOf(deps.db, report.project_id, deps.clock.now().toISOString());
      if (format === 'csv') return streamOf(csvDocument(await primed(issueBatches(rows, report.id)), states));
      // The rules come before the results in the log: known first, with one query.
      const issueAnalyzers = await rows.analyzersOf(report.id);
      const results = await reports.resultsOf(report.id);
      // Deleted since it was resolved (D11's 404).
      if (!results) throw notFound();
      // Read from the stored results, on a thread when they are large (D28).
      const { help, suppressed } = await deps.heavyWork.sarifSources(
        results,
        issueAnalyzers.map((analyzer) => analyzer.analyzer_id),
      );
      const analyzers = analyzersWithSuppressed(issueAnalyzers, suppressed);
      const batches = await primed(issueBatches(rows, report.id));
      return streamOf(sarifLog({ report, analyzers, help, suppressed, states }, batches));
    },
  };
}

export type ReportExportService = ReturnType<typeof createReportExportService>;

/** Bytes, not objects: the buffer limit then counts bytes. */
function streamOf(pieces: AsyncGenerator<string>): Readable {
  return Readable.from(pieces, { objectMode: false, highWaterMark: STREAM_BUFFER_BYTES });
}
