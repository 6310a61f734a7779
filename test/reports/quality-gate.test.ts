import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { result, setGate, uploadBody, type UploadResult } from '../helpers/reports-world.js';
import { SEVERITIES, uploadOk, type Severity, type Status } from '../helpers/client-wire.js';

let runs = 0;
const it = appTest({ user: { plan: 'business' } }).extend(
  'gateFor',
  ({ apiToken, ctx }) =>
    async (results: UploadResult[]) =>
      // Each call another run: the same body again would be a retry, answered with the first gate (D40).
      (await uploadOk(ctx, apiToken, uploadBody(results, { total_execution_time: ++runs }))).gate as Record<string, any>,
);

// CLIENT-WIRE.md "What the service does with a report": the upload answer's `gate` applies the
// project's settings.fail_on and settings.fail_threshold (D14) to the stored report.

/** `passed` analyzers and `100 - passed` warnings without issues: a report whose score is exactly `score`. */
function resultsWithScore(score: number): UploadResult[] {
  const results: UploadResult[] = [];
  for (let i = 0; i < 100; i++) results.push(result(`analyzer-${i}`, i < score ? 'passed' : 'warning'));
  return results;
}

describe('the quality gate of POST /api/reports', () => {
  /** A failed analyzer with one issue of `severity`, next to a passed one. */
  const failedWith = (severity: Severity) => [result('sql-injection', 'failed', [severity]), result('csrf-protection', 'passed')];

  /** Asserts a failing gate with `count` reasons, each a non-empty sentence, and the echoed settings. */
  function expectFailed(gate: Record<string, any>, settings: { fail_on: string | null; fail_threshold: number | null }, count: number) {
    expect(Object.keys(gate).sort()).toEqual(['dismissed', 'fail_on', 'fail_on_new', 'fail_threshold', 'passed', 'reasons']);
    expect(gate.fail_on_new).toBeNull();
    expect(gate.passed).toBe(false);
    expect(gate.fail_on).toBe(settings.fail_on);
    expect(gate.fail_threshold).toBe(settings.fail_threshold);
    expect(gate.reasons).toHaveLength(count);
    for (const reason of gate.reasons) {
      expect(typeof reason).toBe('string');
      expect(reason.trim()).not.toBe('');
    }
  }

  describe('defaults', () => {
    it('passes with fail_on and fail_threshold null when the project has no settings, even with critical issues', async ({ gateFor }) => {
      const gate = await gateFor([result('sql-injection', 'failed', ['critical', 'critical']), result('debug-mode', 'failed', ['high'])]);
      expect(gate).toEqual({ passed: true, fail_on: null, fail_threshold: null, fail_on_new: null, reasons: [], dismissed: 0 });
    });
  });

  describe('fail_on (D14): fails when a failed analyzer has an issue at or above the level', () => {
    const levels: { level: Severity; below: Severity }[] = [
      { level: 'critical', below: 'high' },
      { level: 'high', below: 'medium' },
      { level: 'medium', below: 'low' },
      { level: 'low', below: 'info' },
    ];

    it.for(levels)('fail_on $level: an issue exactly at $level fails', async ({ level }, { ctx, user, projectId, gateFor }) => {
      await setGate(ctx, user, projectId, { fail_on: level });
      expectFailed(await gateFor(failedWith(level)), { fail_on: level, fail_threshold: null }, 1);
    });

    it.for(levels)('fail_on $level: an issue just below ($below) passes', async ({ level, below }, { ctx, user, projectId, gateFor }) => {
      await setGate(ctx, user, projectId, { fail_on: level });
      expect(await gateFor(failedWith(below))).toEqual({
        passed: true,
        fail_on: level,
        fail_threshold: null,
        fail_on_new: null,
        reasons: [],
        dismissed: 0,
      });
    });

    it.for(levels)(
      'fail_on $level: every severity at or above the level fails, every one below passes',
      async ({ level }, { ctx, user, projectId, gateFor }) => {
        await setGate(ctx, user, projectId, { fail_on: level });
        for (const severity of SEVERITIES.slice(0, SEVERITIES.indexOf(level) + 1)) {
          expectFailed(await gateFor(failedWith(severity)), { fail_on: level, fail_threshold: null }, 1);
        }
        for (const severity of SEVERITIES.slice(SEVERITIES.indexOf(level) + 1)) {
          expect(await gateFor(failedWith(severity))).toEqual({
            passed: true,
            fail_on: level,
            fail_threshold: null,
            fail_on_new: null,
            reasons: [],
            dismissed: 0,
          });
        }
      },
    );

    it.for([null, 'never'])(
      'fail_on %s never fails on severity, even for critical issues',
      async (level, { ctx, user, projectId, gateFor }) => {
        await setGate(ctx, user, projectId, { fail_on: level });
        const gate = await gateFor([result('sql-injection', 'failed', ['critical', 'high', 'medium', 'low', 'info'])]);
        expect(gate).toEqual({ passed: true, fail_on: level, fail_threshold: null, fail_on_new: null, reasons: [], dismissed: 0 });
      },
    );

    it('gives one reason for the rule however many issues and analyzers offend', async ({ ctx, user, projectId, gateFor }) => {
      await setGate(ctx, user, projectId, { fail_on: 'medium' });
      const gate = await gateFor([
        result('sql-injection', 'failed', ['critical', 'high']),
        result('xss-detection', 'failed', ['medium', 'low']),
      ]);
      expectFailed(gate, { fail_on: 'medium', fail_threshold: null }, 1);
    });

    it.for<Status>(['warning', 'error', 'passed', 'skipped'])(
      'ignores issues in %s results (only failed analyzers count)',
      async (status, { ctx, user, projectId, gateFor }) => {
        await setGate(ctx, user, projectId, { fail_on: 'low' });
        const gate = await gateFor([result('sql-injection', status, ['critical', 'high', 'medium', 'low'])]);
        expect(gate).toEqual({ passed: true, fail_on: 'low', fail_threshold: null, fail_on_new: null, reasons: [], dismissed: 0 });
      },
    );

    it('passes a failed analyzer that has no issues', async ({ ctx, user, projectId, gateFor }) => {
      await setGate(ctx, user, projectId, { fail_on: 'low' });
      expect((await gateFor([result('sql-injection', 'failed')])).passed).toBe(true);
    });

    it('does not count suppressed issues', async ({ ctx, user, projectId, gateFor }) => {
      await setGate(ctx, user, projectId, { fail_on: 'low' });
      const gate = await gateFor([
        result('sql-injection', 'failed', ['info'], {
          suppressed_issues: [
            { message: 'suppressed', severity: 'critical', recommendation: '', suppression: { type: 'baseline', description: 'known' } },
          ],
        }),
      ]);
      expect(gate).toEqual({ passed: true, fail_on: 'low', fail_threshold: null, fail_on_new: null, reasons: [], dismissed: 0 });
    });

    it('applies the setting as it is at upload time', async ({ ctx, user, projectId, gateFor }) => {
      await setGate(ctx, user, projectId, { fail_on: 'critical' });
      expect((await gateFor(failedWith('high'))).passed).toBe(true);
      await setGate(ctx, user, projectId, { fail_on: 'high' });
      expect((await gateFor(failedWith('high'))).passed).toBe(false);
    });
  });

  describe('fail_threshold (D14): fails when the score is below it', () => {
    it.for([
      { threshold: 50, score: 50, passed: true },
      { threshold: 50, score: 49, passed: false },
      { threshold: 50, score: 51, passed: true },
      { threshold: 0, score: 0, passed: true },
      { threshold: 100, score: 100, passed: true },
      { threshold: 100, score: 99, passed: false },
      { threshold: 1, score: 0, passed: false },
    ])('threshold $threshold, score $score: passed $passed', async ({ threshold, score, passed }, { ctx, user, projectId, apiToken }) => {
      await setGate(ctx, user, projectId, { fail_threshold: threshold });
      const answer = await uploadOk(ctx, apiToken, uploadBody(resultsWithScore(score)));
      expect(answer.report.score).toBe(score);
      if (passed) {
        expect(answer.gate).toEqual({
          passed: true,
          fail_on: null,
          fail_threshold: threshold,
          fail_on_new: null,
          reasons: [],
          dismissed: 0,
        });
      } else {
        expectFailed(answer.gate, { fail_on: null, fail_threshold: threshold }, 1);
      }
    });

    it('threshold 0 passes even a report in which every analyzer failed', async ({ ctx, user, projectId, apiToken }) => {
      await setGate(ctx, user, projectId, { fail_threshold: 0 });
      const answer = await uploadOk(ctx, apiToken, uploadBody([result('a', 'failed', ['critical']), result('b', 'error')]));
      expect(answer.report.score).toBe(0);
      expect(answer.gate).toEqual({ passed: true, fail_on: null, fail_threshold: 0, fail_on_new: null, reasons: [], dismissed: 0 });
    });

    it('uses the recomputed score, not the score of the client summary', async ({ ctx, user, projectId, apiToken }) => {
      await setGate(ctx, user, projectId, { fail_threshold: 80 });
      const body = uploadBody([result('a', 'passed'), result('b', 'warning')], {
        summary: { total: 2, passed: 2, failed: 0, warnings: 0, skipped: 0, errors: 0, total_issues: 0, score: 100 },
      });
      const answer = await uploadOk(ctx, apiToken, body);
      expect(answer.report.score).toBe(50);
      expectFailed(answer.gate, { fail_on: null, fail_threshold: 80 }, 1);
    });

    it('a report of only skipped analyzers scores 100 and passes threshold 100', async ({ ctx, user, projectId, apiToken }) => {
      await setGate(ctx, user, projectId, { fail_threshold: 100 });
      const answer = await uploadOk(ctx, apiToken, uploadBody([result('a', 'skipped'), result('b', 'skipped')]));
      expect(answer.report.score).toBe(100);
      expect(answer.gate.passed).toBe(true);
    });
  });

  describe('both rules', () => {
    it('gives two reasons when both fail', async ({ ctx, user, projectId, gateFor }) => {
      await setGate(ctx, user, projectId, { fail_on: 'high', fail_threshold: 80 });
      // 1 passed of 2: score 50 < 80; the failed analyzer has a critical issue.
      const gate = await gateFor([result('sql-injection', 'failed', ['critical']), result('csrf-protection', 'passed')]);
      expectFailed(gate, { fail_on: 'high', fail_threshold: 80 }, 2);
      expect(gate.reasons[0]).not.toBe(gate.reasons[1]);
    });

    it('gives one reason when only the severity rule fails', async ({ ctx, user, projectId, gateFor }) => {
      await setGate(ctx, user, projectId, { fail_on: 'high', fail_threshold: 50 });
      const gate = await gateFor([result('sql-injection', 'failed', ['high']), result('csrf-protection', 'passed')]);
      expectFailed(gate, { fail_on: 'high', fail_threshold: 50 }, 1);
    });

    it('gives one reason when only the threshold fails', async ({ ctx, user, projectId, gateFor }) => {
      await setGate(ctx, user, projectId, { fail_on: 'high', fail_threshold: 51 });
      const gate = await gateFor([result('sql-injection', 'failed', ['medium']), result('csrf-protection', 'passed')]);
      expectFailed(gate, { fail_on: 'high', fail_threshold: 51 }, 1);
    });

    it('passes with reasons [] when neither fails, echoing both settings', async ({ ctx, user, projectId, gateFor }) => {
      await setGate(ctx, user, projectId, { fail_on: 'high', fail_threshold: 50 });
      const gate = await gateFor([result('sql-injection', 'failed', ['medium']), result('csrf-protection', 'passed')]);
      expect(gate).toEqual({ passed: true, fail_on: 'high', fail_threshold: 50, fail_on_new: null, reasons: [], dismissed: 0 });
    });
  });

  describe("the project's settings decide, not the client's configuration", () => {
    it('ignores configuration.fail_on and configuration.fail_threshold sent by the client', async ({ ctx, apiToken }) => {
      const body = uploadBody(failedWith('critical'), { configuration: { fail_on: 'low', fail_threshold: 100 } });
      const answer = await uploadOk(ctx, apiToken, body);
      expect(answer.gate).toEqual({ passed: true, fail_on: null, fail_threshold: null, fail_on_new: null, reasons: [], dismissed: 0 });
    });

    it('fails on the project settings even when the client configuration would pass', async ({ ctx, user, projectId, apiToken }) => {
      await setGate(ctx, user, projectId, { fail_on: 'critical' });
      const body = uploadBody(failedWith('critical'), { configuration: { fail_on: 'never', fail_threshold: 0 } });
      expectFailed((await uploadOk(ctx, apiToken, body)).gate, { fail_on: 'critical', fail_threshold: null }, 1);
    });
  });

  describe('the gate is computed on what was stored', () => {
    it('stores the report whether or not the gate passed (201, listed)', async ({ ctx, user, projectId, apiToken }) => {
      await setGate(ctx, user, projectId, { fail_on: 'low', fail_threshold: 100 });
      const answer = await uploadOk(ctx, apiToken, uploadBody(failedWith('critical')));
      expect(answer.gate.passed).toBe(false);
      expect(answer.message).toBe('Report received.');
      const list = await ctx.request({ method: 'GET', url: `/api/v1/projects/${projectId}/reports`, token: user.token });
      expect(list.json().data.map((r: { uuid: string }) => r.uuid)).toEqual([answer.report.uuid]);
    });
  });
});
