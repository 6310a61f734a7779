import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One module's imports: the files of the tree it imports, and the packages. */
export interface ModuleImports {
  files: string[];
  packages: string[];
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function walk(dir: string, ending: string, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, ending, into);
    else if (entry.name.endsWith(ending)) into.push(path);
  }
  return into;
}

/**
 * Every module below `root` (`.ts` sources, or `.js` when `compiled`) and what it imports, type-only
 * imports included: a file that names another's type depends on it too. Paths are relative to `root`.
 */
export function importGraph(root: string, compiled = false): Map<string, ModuleImports> {
  const ending = compiled ? '.js' : '.ts';
  const graph = new Map<string, ModuleImports>();
  for (const file of walk(root, ending)) {
    const imports: ModuleImports = { files: [], packages: [] };
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = (match[1] ?? match[2] ?? match[3])!;
      if (!specifier.startsWith('.')) {
        imports.packages.push(specifier);
        continue;
      }
      const target = resolve(dirname(file), compiled ? specifier : specifier.replace(/\.js$/, '.ts'));
      if (existsSync(target)) imports.files.push(relative(root, target));
    }
    graph.set(relative(root, file), imports);
  }
  return graph;
}

/** The first level below the root: a folder, or a file that stands directly in it. */
export const folderOf = (file: string) => file.split(sep)[0]!;

/** The import circles of the graph (its strongly connected parts of more than one module). */
export function importCircles(graph: Map<string, ModuleImports>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file)?.files ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) === index.get(file)) {
      const part: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        part.push(member);
      } while (member !== file);
      if (part.length > 1) circles.push(part.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/** Every module `entry` loads, itself included. */
export function reachableFrom(graph: Map<string, ModuleImports>, entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...(graph.get(file)?.files ?? []));
  }
  return seen;
}
