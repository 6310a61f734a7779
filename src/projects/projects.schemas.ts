import { Type, type Static } from 'typebox';
import { PageQuery, Paginated } from '../wire/pagination.js';
import { NullableString, NullableTimestamp } from '../wire/schemas.js';
import { HTTP_URL_FORMAT } from '../wire/validation.js';
import { ReportSummary } from '../reports/reports.schemas.js';
import { ProjectSettings, ProjectSettingsInput } from './settings.js';

export const FRAMEWORK_VERSIONS = ['9', '10', '11', '12', '13'] as const;

/** D12: the one field that accepts a string or the same value as an integer; stored as a string. */
const FrameworkVersionInput = Type.Unsafe<string | number>({
  type: ['string', 'integer'],
  enum: [...FRAMEWORK_VERSIONS, ...FRAMEWORK_VERSIONS.map(Number)],
  description: 'Major version of the application framework, as a string or an integer.',
  examples: ['11'],
});

// D12/D24: an absolute http or https URL with a host and no credentials (wire/validation.ts).
const RepositoryUrlInput = NullableString({
  maxLength: 500,
  format: HTTP_URL_FORMAT,
  description: 'An absolute http or https URL with a host, a valid port and no user name or password.',
  examples: ['https://github.com/acme/shop'],
});

const projectInputFields = {
  name: Type.String({ maxLength: 255, examples: ['Shop'] }),
  description: Type.Optional(NullableString({ maxLength: 1000 })),
  repository_url: Type.Optional(RepositoryUrlInput),
  framework_version: FrameworkVersionInput,
};

export const CreateProjectBody = Type.Object(projectInputFields, { $id: 'CreateProjectBody' });
export type CreateProjectBody = Static<typeof CreateProjectBody>;

export const UpdateProjectBody = Type.Object(
  { ...projectInputFields, settings: Type.Optional(ProjectSettingsInput) },
  { $id: 'UpdateProjectBody' },
);
export type UpdateProjectBody = Static<typeof UpdateProjectBody>;

/** api-v1.md 2.1, plus `settings` (D14). */
export const Project = Type.Object(
  {
    id: Type.String({ format: 'uuid', examples: ['019a8f4e-7c1d-7a4b-9f2e-3c5d6e7f8a9b'] }),
    name: Type.String(),
    description: NullableString(),
    repository_url: NullableString(),
    framework_version: Type.String({ enum: [...FRAMEWORK_VERSIONS] }),
    team_id: Type.Integer(),
    archived_at: NullableTimestamp('Set while the project is archived.'),
    created_at: NullableTimestamp(),
    latest_report: Type.Union([ReportSummary, Type.Null()]),
    settings: ProjectSettings,
  },
  { $id: 'Project' },
);
export type Project = Static<typeof Project>;

export const ProjectResponse = Type.Object({ data: Project });

export const CreateProjectResponse = Type.Object({
  project: Project,
  api_token: Type.String({ pattern: '^[A-Za-z0-9]{40}$', description: 'Project API token; shown once.' }),
  message: Type.String(),
});

export const RegenerateTokenResponse = Type.Object({
  api_token: Type.String({ pattern: '^[A-Za-z0-9]{40}$', description: 'The new project API token; shown once.' }),
  message: Type.String(),
});

export const ProjectListQuery = PageQuery;

export const ProjectListResponse = Paginated(Project);

export const ProjectParams = Type.Object({
  project: Type.String({ format: 'uuid', description: 'Project id (UUID). Anything else is a 404.' }),
});
