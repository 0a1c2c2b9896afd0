/** The CLI's header mappings and row rules are the imports' one set (src/lib/import-formats.ts). */
export { householdRole, isHouseholdPrimary, mapperFor, MappingError, parseMaps, type ImportKind, type RowMapper } from '../lib/import-formats.js';
