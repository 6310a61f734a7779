import type { UploadDecisions } from '../issues/upload-decisions.js';
import type { ProjectContentsDeps } from '../projects/projects.service.js';
import { createReportExportService } from './export/report-export.service.js';
import type { ReportStoredHook } from './report-stored.js';
import { reportsRoutes } from './reports.routes.js';
import { createReportsService } from './reports.service.js';
import { createSuppressedIssuesService } from './suppressed-issues.service.js';
import type { HeavyWork } from './threads/heavy-work.js';

/** E1-E3, E8.6: reports, what changed between runs, trends, exports and suppressed issues; uploads arrive through client-api/. */
export function reportsModule(
  deps: ProjectContentsDeps & { heavyWork: HeavyWork; uploadDecisions: UploadDecisions; reportStored?: readonly ReportStoredHook[] },
) {
  const service = createReportsService({ ...deps, projectForWrite: deps.projects.lockForWrite });
  const exportService = createReportExportService(deps);
  const suppressedIssuesService = createSuppressedIssuesService(deps);
  return {
    service,
    routes: (app: Parameters<typeof reportsRoutes>[0]) =>
      reportsRoutes(app, {
        reportsService: service,
        reportExportService: exportService,
        suppressedIssuesService,
        projectsService: deps.projects,
        config: deps.config,
      }),
  };
}
