/** D6: `admin` includes `write`, which includes `read`. */
export const ABILITIES = ['read', 'write', 'admin'] as const;
export type Ability = (typeof ABILITIES)[number];

const rank: Record<Ability, number> = { read: 0, write: 1, admin: 2 };

export function hasAbility(granted: readonly Ability[], required: Ability): boolean {
  return granted.some((ability) => rank[ability] >= rank[required]);
}

/** D6: stored and returned as given, deduplicated, in the order read, write, admin. */
export function normalizeAbilities(abilities: readonly Ability[]): Ability[] {
  return ABILITIES.filter((ability) => abilities.includes(ability));
}

export function parseStoredAbilities(json: string): Ability[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? normalizeAbilities(parsed.filter((a): a is Ability => ABILITIES.includes(a))) : [];
}
