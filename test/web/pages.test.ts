// The router's own matcher (the package's main entry does not export it, its types notwithstanding).
import { exec } from 'preact-iso/router';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_PAGES, pageUrl } from '../../src/dashboard/dashboard-pages.js';
import { clientEnvLines } from '../../web/src/lib/client-setup.js';
import { safeNextPath, signInUrl } from '../../web/src/lib/next-path.js';

describe('the dashboard’s pages', () => {
  it('fills in and percent-encodes a page’s parameters', () => {
    expect(pageUrl('project', { project: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' })).toBe('/projects/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
    expect(pageUrl('team', { team: 7 })).toBe('/teams/7');
    expect(pageUrl('report', { report: 'a/b?c' })).toBe('/reports/a%2Fb%3Fc');
    expect(pageUrl('tokens', {})).toBe('/tokens');
  });

  it('routes each page’s URL in the app to that page only (new project before project)', () => {
    const matching = (url: string) =>
      Object.entries(DASHBOARD_PAGES)
        .filter(([, pattern]) => exec(url, pattern))
        .map(([name]) => name);
    expect(matching('/')).toEqual(['projects']);
    expect(matching('/projects/new')).toEqual(['newProject', 'project']);
    expect(matching('/projects/abc')).toEqual(['project']);
    expect(matching('/projects/abc/pull-requests')).toEqual(['pullRequests']);
    expect(matching('/projects/abc/failed-runs')).toEqual(['failedRuns']);
    expect(matching('/projects/abc/issues')).toEqual(['projectIssues']);
    expect(matching('/assigned-to-me')).toEqual(['assignedIssues']);
    expect(matching('/teams/3')).toEqual(['team']);
    expect(matching('/projects')).toEqual([]);
  });
});

describe('signing in and coming back', () => {
  it('comes back to the page the person asked for', () => {
    expect(signInUrl('/tokens')).toBe('/sign-in?next=%2Ftokens');
    expect(signInUrl('/?page=2')).toBe('/sign-in?next=%2F%3Fpage%3D2');
    expect(signInUrl('/')).toBe('/sign-in');
    expect(safeNextPath('/tokens')).toBe('/tokens');
    expect(safeNextPath('/projects/abc?x=1')).toBe('/projects/abc?x=1');
  });

  it('never goes to another site, nor back to the sign-in page', () => {
    for (const next of [undefined, '', 'https://evil.example/', '//evil.example', '/\\evil.example', 'javascript:alert(1)', '/sign-in']) {
      expect(safeNextPath(next)).toBe('/');
    }
  });
});

describe('a new project’s client set-up', () => {
  it('gives the client package the service URL, the project token and the project id', () => {
    expect(clientEnvLines({ serviceUrl: 'https://scores.example.com', apiToken: 'a'.repeat(40), projectId: 'p-1' })).toBe(
      `SHIELDCI_API_URL=https://scores.example.com\nSHIELDCI_TOKEN=${'a'.repeat(40)}\nSHIELDCI_PROJECT_ID=p-1`,
    );
  });
});
