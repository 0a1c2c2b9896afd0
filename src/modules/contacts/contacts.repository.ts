import type { Db } from '../../db/client.js';
import { contactEmails, contacts, persons } from '../../db/schema/index.js';

/**
 * Minimal person creation used by tenant seeding and registration.
 * TODO(contacts issue): replace with the full contacts repository; keep sort/search columns in step.
 */
export async function insertPersonContact(
  tx: Db,
  tenantId: number,
  input: { firstName: string; lastName: string; email?: string | null },
): Promise<number> {
  const searchText = [input.firstName, input.lastName, input.email].filter(Boolean).join(' ').toLowerCase();
  const [contact] = await tx
    .insert(contacts)
    .values({ tenantId, category: 'Person', sortLast: input.lastName.toLowerCase(), sortFirst: input.firstName.toLowerCase(), searchText })
    .returning({ id: contacts.id });
  await tx.insert(persons).values({ tenantId, contactId: contact.id, firstName: input.firstName, lastName: input.lastName });
  if (input.email) await tx.insert(contactEmails).values({ tenantId, contactId: contact.id, value: input.email, isPrimary: true });
  return contact.id;
}
