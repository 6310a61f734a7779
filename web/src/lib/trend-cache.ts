import { api, call } from '../api/client.js';
import type { Project, TrendPoint } from '../api/types.js';

/**
 * The projects page draws a sparkline per project, one trend request each: up to 20 requests a
 * view against the user's 120 a minute (D8). A project's trend changes only with a new latest
 * report, so each is kept for the page's life under the latest report's id, and a return to the
 * page costs one request instead of twenty-one.
 */
const trends = new Map<string, Promise<TrendPoint[]>>();

export function recentTrend(project: Project, limit: number): Promise<TrendPoint[]> {
  if (project.latest_report === null) return Promise.resolve([]);
  const key = `${project.id}:${project.latest_report.uuid}:${limit}`;
  let trend = trends.get(key);
  if (trend === undefined) {
    trend = call(api.GET('/api/v1/projects/{project}/trend', { params: { path: { project: project.id }, query: { limit } } })).then(
      (answer) => answer.data,
    );
    // A failure is not kept: the next view asks again.
    trend.catch(() => trends.delete(key));
    trends.set(key, trend);
  }
  return trend;
}

/** At each sign-in (whoever was signed in before in this tab, however their session ended): nothing kept of theirs. */
export function forgetTrends(): void {
  trends.clear();
}
