import type { Faker } from '@faker-js/faker';
import type { Db } from '../src/db/client.js';
import {
  companies, contactAddresses, contactEmails, contactIdentifications, contactOccasions, contactPhones,
  contactRelationships, contactRequests, contacts, persons,
} from '../src/db/schema/index.js';
import { CIVIL_STATUSES, CONTACT_STATUSES, REQUEST_TYPES } from '../src/db/schema/enums.js';
import { insertMany, insertReturningIds } from './bulk-insert.js';

type Row = Record<string, unknown>;

export interface GenContact {
  category: 'Person' | 'Company';
  status: (typeof CONTACT_STATUSES)[number];
  person?: { firstName: string; lastName: string; middleName: string | null; gender: 'Male' | 'Female'; civilStatus: string; dateOfBirth: string; occupation: string | null };
  company?: { name: string; industry: string; website: string };
  emails: string[];
  phones: string[];
  address?: { street: string; city: string; country: string };
}

/** The denormalized columns the contacts service keeps (sort order, `q` search text, phone digits). */
export function contactColumns(c: GenContact) {
  const names = c.person ? [c.person.firstName, c.person.middleName, c.person.lastName] : [c.company!.name];
  const digits = c.phones.map((p) => p.replace(/\D/g, '')).filter(Boolean);
  return {
    sortLast: (c.person ? c.person.lastName : c.company!.name).toLowerCase(),
    sortFirst: (c.person ? c.person.firstName : '').toLowerCase(),
    searchText: [...names, ...c.emails, ...c.phones].filter(Boolean).join(' ').toLowerCase(),
    phoneDigits: digits.join(' '),
  };
}

/** One realistic contact; index < `full` gets every optional part, so single reads have something to load. */
export function fakeContact(faker: Faker, index: number, full: number): GenContact {
  const isFull = index < full;
  const isCompany = !isFull && faker.number.float() < 0.03;
  const status = isFull || faker.number.float() < 0.9 ? 'Active' : faker.helpers.arrayElement(CONTACT_STATUSES);
  const c: GenContact = { category: isCompany ? 'Company' : 'Person', status, emails: [], phones: [] };
  if (isCompany) {
    c.company = { name: faker.company.name(), industry: faker.commerce.department(), website: faker.internet.url() };
  } else {
    const sex = faker.helpers.arrayElement(['male', 'female'] as const);
    const firstName = faker.person.firstName(sex);
    const lastName = faker.person.lastName();
    c.person = {
      firstName, lastName,
      middleName: isFull || faker.number.float() < 0.3 ? faker.person.middleName(sex) : null,
      gender: sex === 'male' ? 'Male' : 'Female',
      civilStatus: faker.helpers.arrayElement(CIVIL_STATUSES),
      dateOfBirth: faker.date.birthdate({ mode: 'year', min: 1940, max: 2018 }).toISOString().slice(0, 10),
      occupation: faker.number.float() < 0.5 ? faker.person.jobTitle() : null,
    };
  }
  const first = c.person?.firstName ?? 'info';
  const last = c.person?.lastName ?? c.company!.name.split(/\W+/)[0];
  if (isFull || faker.number.float() < 0.85) c.emails.push(faker.internet.email({ firstName: first, lastName: last }).toLowerCase());
  if (isFull || faker.number.float() < 0.1) c.emails.push(faker.internet.email({ firstName: first, lastName: `${last}${index}` }).toLowerCase());
  if (isFull || faker.number.float() < 0.75) c.phones.push(faker.phone.number({ style: faker.number.float() < 0.5 ? 'international' : 'national' }));
  if (isFull || faker.number.float() < 0.15) c.phones.push(faker.phone.number({ style: 'national' }));
  if (isFull || faker.number.float() < 0.6) c.address = { street: faker.location.streetAddress(), city: faker.location.city(), country: faker.location.country() };
  return c;
}

/** Inserts the contacts and their child rows; returns the contact ids in generation order. */
export async function insertContacts(tx: Db, faker: Faker, tenantId: number, list: GenContact[], full: number): Promise<number[]> {
  const ids = await insertReturningIds(
    tx, contacts,
    list.map((c) => ({ tenantId, category: c.category, status: c.status, ...contactColumns(c) })),
  );
  const personRows: Row[] = [], companyRows: Row[] = [], emailRows: Row[] = [], phoneRows: Row[] = [], addressRows: Row[] = [];
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    const contactId = ids[i];
    if (c.person) personRows.push({ tenantId, contactId, ...c.person });
    if (c.company) companyRows.push({ tenantId, contactId, ...c.company });
    c.emails.forEach((value, position) => emailRows.push({ tenantId, contactId, value, isPrimary: position === 0, position }));
    c.phones.forEach((value, position) => phoneRows.push({ tenantId, contactId, value, digits: value.replace(/\D/g, ''), isPrimary: position === 0, position }));
    if (c.address) addressRows.push({ tenantId, contactId, ...c.address, isPrimary: true, position: 0 });
  }
  await insertMany(tx, persons, personRows);
  await insertMany(tx, companies, companyRows);
  await insertMany(tx, contactEmails, emailRows);
  await insertMany(tx, contactPhones, phoneRows);
  await insertMany(tx, contactAddresses, addressRows);
  await insertExtras(tx, faker, tenantId, ids, full);
  return ids;
}

/** Occasions, identifications, relationships (both sides) and requests for a share of the contacts. */
async function insertExtras(tx: Db, faker: Faker, tenantId: number, ids: number[], full: number) {
  const occasions: Row[] = [], identifications: Row[] = [], relationships: Row[] = [], requests: Row[] = [];
  for (let i = 0; i < ids.length; i++) {
    const isFull = i < full;
    const contactId = ids[i];
    if (isFull || i % 5 === 0) {
      occasions.push({ tenantId, contactId, type: 'Baptism', date: faker.date.between({ from: '1990-01-01', to: '2025-12-31' }).toISOString().slice(0, 10), details: null });
    }
    if (isFull || i % 10 === 0) {
      identifications.push({ tenantId, contactId, type: 'NationalId', value: faker.string.alphanumeric({ length: 10, casing: 'upper' }), issuedBy: 'Registry', expiresOn: null });
    }
    if ((isFull || i % 20 === 0) && i + 1 < ids.length) {
      relationships.push({ tenantId, contactId, relatedContactId: ids[i + 1], type: 'Spouse' });
      relationships.push({ tenantId, contactId: ids[i + 1], relatedContactId: contactId, type: 'Spouse' });
    }
    if (isFull || i % 20 === 0) {
      requests.push({ tenantId, contactId, type: faker.helpers.arrayElement(REQUEST_TYPES), description: faker.lorem.sentence(), status: 'Open' });
    }
  }
  await insertMany(tx, contactOccasions, occasions);
  await insertMany(tx, contactIdentifications, identifications);
  await insertMany(tx, contactRelationships, relationships);
  await insertMany(tx, contactRequests, requests);
}
