// `npm install` / `npm ci` run this (the `prepare` script): compile src/ to dist/ and build the
// dashboard (web/) into dist/web/ when TypeScript is installed. A production install (`npm ci
// --omit=dev`, or `npm prune --omit=dev` after a build) has no TypeScript; it must not fail for that,
// and it keeps the dist/ built before (README, "Production install").
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function typescriptInstalled() {
  try {
    require.resolve('typescript/package.json');
    return true;
  } catch {
    return false;
  }
}

if (typescriptInstalled()) {
  const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(build.status ?? 1);
} else if (existsSync(new URL('../dist/cli/main.js', import.meta.url))) {
  console.log('prepare: TypeScript is not installed (a production install); serving the build in dist/.');
} else {
  // Nothing to serve: say so and fail, or `npm ci --omit=dev` on a fresh clone would end "successfully"
  // with a `scoreboard` that cannot run.
  console.error(
    'prepare: TypeScript is not installed and there is no build in dist/, so there is nothing to run. ' +
      'Install with every dependency first (`npm ci`, which builds), then drop the development ones ' +
      '(`npm prune --omit=dev`): README, "Production install".',
  );
  process.exit(1);
}
