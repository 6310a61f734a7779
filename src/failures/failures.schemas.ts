import { Type, type Static } from 'typebox';
import { NullableString, NullableTimestamp } from '../wire/schemas.js';

/** A failed run, as `GET /api/v1/projects/{project}/failures` lists it. */
export const RunFailure = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.String({ format: 'uuid' }),
    failure_reason: NullableString({
      examples: ['uncaught_exception'],
      description: 'invalid_options, all_categories_disabled, no_analyzers_ran or uncaught_exception',
    }),
    failure_label: NullableString({ examples: ['Uncaught exception during analysis'] }),
    error_message: NullableString(),
    triggered_by: NullableString({ examples: ['ci_cd'] }),
    framework_version: NullableString({ examples: ['11.44.2'] }),
    package_version: NullableString({ examples: ['1.13.3.0'] }),
    occurred_at: NullableTimestamp('When the run failed'),
    metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'Run context: git, CI, environment, php version' }),
    created_at: NullableTimestamp(),
  },
  { $id: 'RunFailure' },
);
export type RunFailure = Static<typeof RunFailure>;
