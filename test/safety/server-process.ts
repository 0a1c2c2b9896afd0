// A real server process for the fault tests: the configuration from the environment, as `parish serve`.
import { loadConfig } from '../../src/config.js';
import { serve } from '../../src/server.js';

await serve(loadConfig());
