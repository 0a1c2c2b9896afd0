/**
 * Writes openapi.json at the repository root from the code (`npm run openapi`); the test in
 * test/docs/openapi.test.ts fails when the committed file differs. `--check` only compares.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocumentText } from '../src/plugins/openapi-document.js';

const file = fileURLToPath(new URL('../openapi.json', import.meta.url));
const text = await openApiDocumentText();
if (process.argv.includes('--check')) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (current !== text) {
    console.error('openapi.json differs from what the code produces: run `npm run openapi`');
    process.exit(1);
  }
  console.log('openapi.json is up to date');
} else {
  fs.writeFileSync(file, text);
  console.log(`wrote ${file}`);
}
