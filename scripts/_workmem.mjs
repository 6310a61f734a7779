import { readFileSync } from 'node:fs';
import { processUploadBytes } from '/work/main/dist/reports/upload-processing.js';
import { buildDetailBody } from '/work/main/dist/reports/detail-body.js';
import v8 from 'node:v8';
const bytes = readFileSync('/tmp/d28/heavy.json');
let peak = 0;
const sample = () => {
  peak = Math.max(peak, v8.getHeapStatistics().used_heap_size);
};
const t = setInterval(sample, 5);
for (let i = 0; i < 3; i++) {
  const s = performance.now();
  const out = processUploadBytes(bytes);
  sample();
  const u = out.upload;
  const row = {
    id: 1,
    uuid: 'x',
    project_id: 'p',
    score: 1,
    total: 1,
    passed: 0,
    failed: 1,
    warnings: 0,
    skipped: 0,
    errors: 0,
    total_issues: 1,
    issues_critical: 0,
    issues_high: 0,
    issues_medium: 0,
    issues_low: 0,
    issues_info: 0,
    framework_version: null,
    package_version: null,
    pro_package_version: null,
    total_execution_time: 1,
    triggered_by: null,
    analyzed_at: '2026-01-01T00:00:00Z',
    created_at: '2026-01-01T00:00:00Z',
    results: '',
    metadata: '{}',
    client_summary: null,
    configuration: null,
    git_branch: null,
    git_commit: null,
    pull_request: null,
    base_branch: null,
    baseline_report_id: null,
    changes_new: null,
    changes_fixed: null,
    changes_unchanged: null,
    gate: null,
    fingerprinted_at: 'x',
    baseline_uuid: null,
    baseline_analyzed_at: null,
    baseline_branch: null,
    baseline_commit: null,
  };
  const m = performance.now();
  const body = buildDetailBody({
    row,
    resultsBr: u.resultsBr,
    marks: { fingerprints: u.issues.fingerprints, changes: new Uint8Array(u.issues.count) },
  });
  sample();
  console.log(
    'process',
    (m - s).toFixed(0),
    'detail',
    (performance.now() - m).toFixed(0),
    'ms; gz',
    body.length,
    'peak heap MiB',
    (peak / 2 ** 20).toFixed(0),
    'rss',
    (process.memoryUsage().rss / 2 ** 20).toFixed(0),
  );
}
clearInterval(t);
