import type { components } from './schema.js';

/** Names for the API's shapes the pages use, from the generated schema. */
type Schemas = components['schemas'];
export type Session = Schemas['Session'];
export type Profile = Schemas['Profile'];
export type Team = Schemas['Team'];
export type Project = Schemas['Project'];
export type TrendPoint = Schemas['TrendPoint'];
