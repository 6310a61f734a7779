import type { components } from '../../api/schema.js';

/** Names for the report API's shapes, from the generated schema (the shared api/types.ts lists only the foundation's). */
type Schemas = components['schemas'];
export type ReportDetail = Schemas['ReportDetail'];
export type ReportResult = Schemas['ReportResult'];
export type ReportIssue = Schemas['ReportIssue'];
export type ChangeItem = Schemas['ChangeItem'];
