import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderOf, importCircles, importGraph, reachableFrom } from '../helpers/import-graph.js';

/**
 * docs/architecture.md's dependency rule, checked on the import graph of src/ (type-only imports
 * count). Folders are src/'s first level; a file directly in src/ counts on its own.
 */
const ROOT = join(import.meta.dirname, '../..');
const graph = importGraph(join(ROOT, 'src'));

const INFRASTRUCTURE = new Set(['db', 'http', 'rate-limit', 'auth', 'jobs', 'wire', 'secrets', 'outbox']);
const ADAPTERS = new Set(['http', 'client-api', 'dashboard', 'cli']);
const isFeature = (folder: string) => !INFRASTRUCTURE.has(folder) && !ADAPTERS.has(folder) && !folder.endsWith('.ts');

/** Every import from one folder into another, as `from -> to`. */
const crossings = [...graph].flatMap(([file, imports]) =>
  imports.files.filter((target) => folderOf(target) !== folderOf(file)).map((target) => ({ file, target })),
);

describe('the dependency rule (docs/architecture.md)', () => {
  it('reads the whole of src/', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('app.ts')?.files).toContain('features.ts');
  });

  it('has no import circle', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('keeps features out of the adapters: only routes and schemas speak HTTP', () => {
    const wrong = crossings.filter(({ file, target }) => {
      if (!isFeature(folderOf(file))) return false;
      const into = folderOf(target);
      if (into === 'http') return !/\.(routes|schemas)\.ts$/.test(file);
      return into === 'client-api' || into === 'dashboard' || into === 'cli';
    });
    expect(wrong.map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
  });

  it('keeps infrastructure free of features', () => {
    const wrong = crossings.filter(({ file, target }) => INFRASTRUCTURE.has(folderOf(file)) && isFeature(folderOf(target)));
    expect(wrong.map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
  });

  it('keeps wire/ free of Fastify and Kysely, so that both sides can use it', () => {
    const wrong = [...graph].filter(
      ([file, imports]) => folderOf(file) === 'wire' && imports.packages.some((name) => /^(fastify|kysely|pg|@fastify\/)/.test(name)),
    );
    expect(wrong.map(([file]) => file)).toEqual([]);
  });

  it('lets only the known folder pairs import each other', () => {
    const pairs = new Set(crossings.map(({ file, target }) => `${folderOf(file)}|${folderOf(target)}`));
    const mutual = [...pairs].filter((pair) => {
      const [a, b] = pair.split('|') as [string, string];
      return a < b && pairs.has(`${b}|${a}`);
    });
    // cli runs `serve` (main.ts), which reports a busy port as an operator error; the reports
    // belong to projects (their lock, settings and path resource) and a project shows its latest report.
    expect(mutual.sort()).toEqual(['cli|main.ts', 'projects|reports']);
  });

  it('loads neither Kysely nor pg nor the database code in an upload thread', () => {
    const worker = 'reports/threads/heavy-work.worker.js';
    const dist = join(ROOT, 'dist');
    expect(existsSync(join(dist, worker)), 'npm test builds dist/ first').toBe(true);
    const compiled = importGraph(dist, true);
    const loaded = reachableFrom(compiled, worker);
    const packages = new Set([...loaded].flatMap((file) => compiled.get(file)?.packages ?? []));
    expect([...packages].filter((name) => /^(kysely|pg|better-sqlite3|ioredis|fastify)/.test(name))).toEqual([]);
    expect([...loaded].filter((file) => folderOf(file) === 'db')).toEqual([]);
  });
});
