import { describe, expect, it } from 'vitest';
import { sparkline } from '../../web/src/lib/sparkline.js';

describe('the projects page’s sparkline', () => {
  it('spreads the scores across the box, 100 at the top and 0 at the bottom, inside the inset', () => {
    expect(sparkline([0, 50, 100], 104, 54)).toEqual({ path: 'M2 52 L52 27 L102 2', last: { x: 102, y: 2 } });
  });

  it('draws a single score as a flat line across, so that it shows', () => {
    expect(sparkline([80], 104, 24)).toEqual({ path: 'M2 6 L102 6', last: { x: 102, y: 6 } });
  });

  it('draws nothing without scores', () => {
    expect(sparkline([], 120, 32)).toEqual({ path: '', last: null });
  });

  it('keeps a score outside 0-100 inside the box, and rounds to a tenth of a pixel', () => {
    const { path } = sparkline([-5, 33, 120], 120, 32);
    expect(path).toBe('M2 30 L60 20.8 L118 2');
  });
});
