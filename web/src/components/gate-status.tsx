/** A stored gate's outcome as a word in its colour; `none` (muted) when no gate was recorded. */
export function GateStatus({ passed, none = '—' }: { passed: boolean | null; none?: string }) {
  if (passed === null) return <span class="muted">{none}</span>;
  return <span class={passed ? 'gate gate-passed' : 'gate gate-failed'}>{passed ? 'Passed' : 'Failed'}</span>;
}
