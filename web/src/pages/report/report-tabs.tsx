import { useLocation } from 'preact-iso';
import { formatNumber } from '../../lib/format.js';
import { REPORT_TABS, type ReportTab, TAB_LABELS } from '../../lib/report-tabs.js';
import { withQuery } from '../../lib/report-view.js';

/**
 * The report's sections as links (`?tab=new`), so reload, back and a shared URL keep the section.
 * A search and a grouping carry over from one issue list to the next; a page number or a filter does not.
 */
export function ReportTabs({ tab, counts }: { tab: ReportTab; counts: Record<ReportTab, number | null> }) {
  const { path, query } = useLocation();
  const kept = { q: query.q ?? null, group: query.group ?? null };
  return (
    <nav class="report-sections" aria-label="Sections of the report">
      <ul class="report-tabs">
        {REPORT_TABS.map((choice) => (
          <li key={choice}>
            <a
              href={withQuery(path, {}, { ...kept, tab: choice === 'overview' ? null : choice })}
              aria-current={tab === choice ? 'page' : undefined}
            >
              {TAB_LABELS[choice]}
              {counts[choice] !== null && <span class="tab-count"> {formatNumber(counts[choice])}</span>}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
