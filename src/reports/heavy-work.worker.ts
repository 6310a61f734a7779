/**
 * The entry point of a heavy-work thread (reports/heavy-work.ts): each export is a task, run by name.
 * Plain functions of their input: no database, no clock, no state between tasks.
 */
export { buildDetailBody } from './detail-body.js';
export { processUploadBytes } from './upload-processing.js';
