import { scoreColor } from '../../../src/badges/badge-content.js';

/**
 * A score as a coloured grade: the colour of the project's score badge (E2.3's thresholds, from the
 * server's own badge code, so page and badge never disagree), the number itself in the pill so that
 * the grade never rests on colour alone.
 */
export function ScoreGrade({ score, large = false }: { score: number; large?: boolean }) {
  return <span class={`grade grade-${scoreColor(score)}${large ? ' grade-large' : ''}`}>{score}</span>;
}
