#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=50
// --max-semi-space-size, --heap-growing-percent: see "Large reports (D28)" in the README; `npm start` and the container pass them too.
// The operator command. The TypeScript sources are compiled to dist/ by `npm install` (prepare) or
// `npm run build`; a production install without dev dependencies keeps the build made before it.
let cli;
try {
  cli = await import('../dist/cli/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/main.js')) throw error;
  console.error('scoreboard: not built: run `npm run build` (it needs the dev dependencies: `npm ci`).');
  process.exit(1);
}
await cli.main(process.argv);
