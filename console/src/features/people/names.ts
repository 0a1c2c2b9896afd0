interface Named {
  person?: { firstName: string; lastName: string };
  company?: { name: string };
}

export function personName(c: Named): string {
  return c.person ? `${c.person.firstName} ${c.person.lastName}` : (c.company?.name ?? '');
}

/** The primary value of a contact's emails or phones (the first when none is marked). */
export function primary(values: { value: string; isPrimary: boolean }[]): string {
  return (values.find((v) => v.isPrimary) ?? values[0])?.value ?? '';
}
