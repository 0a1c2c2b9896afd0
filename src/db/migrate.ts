import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { AppDb } from './client.js';

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/**
 * Applies the checked-in migrations, then (idempotently) puts every table that has a tenant_id
 * column under row level security, so a table added later cannot be forgotten.
 */
export async function migrate(appDb: AppDb): Promise<void> {
  if (appDb.kind === 'pglite') await migratePglite(appDb.db as never, { migrationsFolder });
  else await migratePg(appDb.db as never, { migrationsFolder });
  await appDb.db.execute(sql.raw(TENANT_SECURITY_SQL));
}

const TENANT_SECURITY_SQL = `
DO $$
DECLARE t text;
BEGIN
  GRANT USAGE ON SCHEMA public TO app_user;
  GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app_user;
  GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO app_user;
  FOR t IN
    SELECT c.table_name FROM information_schema.columns c
    JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
    WHERE c.table_schema = 'public' AND c.column_name = 'tenant_id' AND tb.table_type = 'BASE TABLE'
  LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    IF NOT EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = 'public' AND tablename = t AND policyname = 'tenant_isolation') THEN
      EXECUTE format(
        'CREATE POLICY tenant_isolation ON %I USING (tenant_id = nullif(current_setting(''app.tenant_id'', true), '''')::bigint) '
        'WITH CHECK (tenant_id = nullif(current_setting(''app.tenant_id'', true), '''')::bigint)', t);
    END IF;
  END LOOP;
END
$$;
`;
