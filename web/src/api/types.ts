import type { components } from './schema.js';

/** Names for the API's shapes the pages use, from the generated schema. */
type Schemas = components['schemas'];
export type Session = Schemas['Session'];
export type Profile = Schemas['Profile'];
export type Team = Schemas['Team'];
export type Project = Schemas['Project'];
export type TrendPoint = Schemas['TrendPoint'];

/**
 * A shape as openapi-fetch hands it to the page: its `Readable` drops every property whose only
 * value is null (it takes them for write-only ones), such as E8.1's `ticket` until tickets exist.
 * The schema's own types carry them, so the pages name the shapes they receive through this.
 */
export type Received<T> = T extends (infer Item)[]
  ? Received<Item>[]
  : T extends object
    ? { [K in keyof T as [NonNullable<T[K]>] extends [never] ? never : K]: Received<T[K]> }
    : T;
