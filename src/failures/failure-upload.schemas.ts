import { Type, type Static } from 'typebox';
import { clientVersionFields, ObjectOrEmptyArray, OptionalEnum, OptionalString, OptionalTimestamp } from '../wire/lenient-schemas.js';

/** Why a run aborted, as the client package says it (CLIENT-WIRE.md). */
export const FAILURE_REASONS = ['invalid_options', 'all_categories_disabled', 'no_analyzers_ran', 'uncaught_exception'] as const;

/** `POST /api/reports/failure`: a run that aborted before completion. */
export const FailureUpload = Type.Object(
  {
    ...clientVersionFields(),
    status: OptionalString({ maxLength: 50 }),
    failure_reason: OptionalEnum(FAILURE_REASONS),
    failure_label: OptionalString({ maxLength: 255 }),
    error_message: OptionalString({ maxLength: 65_535 }),
    triggered_by: OptionalString({ maxLength: 100 }),
    occurred_at: OptionalTimestamp(),
    metadata: Type.Optional(ObjectOrEmptyArray()),
  },
  { $id: 'FailureUpload' },
);
export type FailureUploadInput = Static<typeof FailureUpload>;
