// Builds the Activity's page into ../static: app.js (src/main.ts and the
// SDK, minified), app.css, index.html, and LICENSES.txt (the licences of
// what app.js bundles). The output depends only on the sources and the lock
// file: .ci/run rebuilds it and fails if it differs from what is committed.
import { build } from 'esbuild';
import { copyFile, readFile, writeFile } from 'node:fs/promises';

const out = '../static';
// The SDK ships these libraries inside its own output (tslib, 0BSD, needs no notice).
const bundled = ['@discord/embedded-app-sdk/LICENSE.md', 'zod/LICENSE', 'uuid/LICENSE.md', 'eventemitter3/LICENSE',
  'lodash.transform/LICENSE', 'decimal.js-light/LICENCE.md', 'big-integer/LICENSE'];

await build({
  entryPoints: ['src/main.ts'],
  outfile: `${out}/app.js`,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  charset: 'utf8',
  banner: { js: '/*! Les Clefs du Trésor. Bundles @discord/embedded-app-sdk and its libraries: see LICENSES.txt. */' },
});
await build({ entryPoints: ['src/app.css'], bundle: true, outfile: `${out}/app.css`, minify: true, charset: 'utf8' });
await copyFile('src/index.html', `${out}/index.html`);
const texts = await Promise.all(bundled.map(async (f) => `== ${f.slice(0, f.lastIndexOf('/'))}\n\n${(await readFile(`node_modules/${f}`, 'utf8')).trim()}\n`));
await writeFile(`${out}/LICENSES.txt`, texts.join('\n'));
