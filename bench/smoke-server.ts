import { adminQuery, withDatabase } from '../src/db/admin.js';

/**
 * The PostgreSQL server a module smoke bench runs on (DATABASE_URL, required), and a way to run
 * admin statements (CREATE/DROP DATABASE) there; each bench creates and drops its own database.
 */
export function smokeServer(): { url: string; admin: (text: string) => Promise<unknown> } {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('DATABASE_URL is required (a PostgreSQL server; the bench creates and drops its own database)');
    process.exit(1);
  }
  return { url, admin: (text: string) => adminQuery(withDatabase(url, 'postgres'), text) };
}
