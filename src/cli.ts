import { runCli } from './cli/main.js';

/** The `parish` command (npm run parish -- …, node dist/cli.mjs …): see src/cli/main.ts. */
runCli(process.argv.slice(2)).then((code) => {
  if (code !== 0) process.exit(code);
});
