import { Type } from 'typebox';
import { FAIL_ON_LEVELS } from '../projects/settings.js';
import { Project } from '../projects/projects.schemas.js';
import { ReportSummary } from '../reports/reports.schemas.js';

/** CLIENT-WIRE.md: every answer to the client package is an object with `success` and `message`. */
const clientAnswer = (success: boolean) => ({
  success: Type.Literal(success),
  message: Type.String(),
});

export const QualityGate = Type.Object(
  {
    passed: Type.Boolean(),
    fail_on: Type.Unsafe<string | null>({ type: ['string', 'null'], enum: [...FAIL_ON_LEVELS, null] }),
    fail_threshold: Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 0, maximum: 100 }),
    fail_on_new: Type.Unsafe<string | null>({ type: ['string', 'null'], enum: [...FAIL_ON_LEVELS, null] }),
    reasons: Type.Array(Type.String(), { description: 'Why the gate failed; empty when it passed.' }),
    dismissed: Type.Integer({
      minimum: 0,
      description:
        "How many of the report's issues were dismissed (accepted, false positive, won't fix), and so left out of fail_on and fail_on_new.",
    }),
  },
  { $id: 'QualityGate', description: "The project's settings.fail_on, fail_threshold and fail_on_new applied to the stored report." },
);

export const UploadResponse = Type.Object({
  ...clientAnswer(true),
  report: ReportSummary,
  gate: QualityGate,
});

export const MessageAnswer = Type.Object(clientAnswer(true));

export const VerifyResponse = Type.Object({
  ...clientAnswer(true),
  valid: Type.Literal(true),
  project: Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() }),
});

export const ClientProjectResponse = Type.Object({
  ...clientAnswer(true),
  data: Project,
});
