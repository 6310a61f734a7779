import type { components } from '../../api/schema.js';
import type { Received } from '../../api/types.js';

/** Names for the report API's shapes, from the generated schema (the shared api/types.ts lists only the foundation's). */
type Schemas = components['schemas'];
export type ReportDetail = Received<Schemas['ReportDetail']>;
export type ReportResult = Received<Schemas['ReportResult']>;
export type ReportIssue = Received<Schemas['ReportIssue']>;
export type ChangeItem = Received<Schemas['ChangeItem']>;
