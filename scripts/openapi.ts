/**
 * `npm run openapi`: writes openapi.json at the repository root from the code, then the typed client's
 * types (client/schema.d.ts) from it. `npm run client`: only the types, from the committed openapi.json.
 * `--check`: only compares. test/docs/openapi.test.ts fails when either file is stale.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { clientTypesHeader, openApiDocumentText } from '../src/plugins/openapi-document.js';

const docFile = fileURLToPath(new URL('../openapi.json', import.meta.url));
const typesFile = fileURLToPath(new URL('../client/schema.d.ts', import.meta.url));

async function writeClientTypes(text: string) {
  const ast = await openapiTS(JSON.parse(text));
  fs.writeFileSync(typesFile, `${clientTypesHeader(text)}\n${astToString(ast)}`);
  console.log(`wrote ${typesFile}`);
}

if (process.argv.includes('--client')) {
  await writeClientTypes(fs.readFileSync(docFile, 'utf8'));
} else {
  const text = await openApiDocumentText();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(docFile) ? fs.readFileSync(docFile, 'utf8') : '';
    if (current !== text) {
      console.error('openapi.json differs from what the code produces: run `npm run openapi`');
      process.exit(1);
    }
    console.log('openapi.json is up to date');
  } else {
    fs.writeFileSync(docFile, text);
    console.log(`wrote ${docFile}`);
    await writeClientTypes(text);
  }
}
