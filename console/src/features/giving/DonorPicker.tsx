import { Group, Select, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { forwardRef, useMemo } from 'react';
import { useDonorChoices } from './api';

/** A donor as a gift records it: the contact, and the words the field shows. */
export interface PickedDonor {
  contactId: number;
  label: string;
  /** Set when a household was picked (its gifts are recorded to its primary contact). */
  householdId?: number;
}

interface Option {
  value: string;
  label: string;
  detail: string;
  contactId: number;
  householdId?: number;
}

/**
 * The donor type-ahead of gift entry, built for the keyboard: type a name, phone digits or a household
 * name, ArrowDown and Enter (or the first match with Enter straight away), then Tab to the amount. A
 * household gives as its primary contact. Empty is an anonymous gift.
 */
export const DonorPicker = forwardRef<HTMLInputElement, {
  value: PickedDonor | null;
  search: string;
  onSearchChange(search: string): void;
  onChange(donor: PickedDonor | null): void;
  label?: string;
  error?: string;
  /** What a household option says it stands for. */
  householdDetail?: (giver: string) => string;
}>(function DonorPicker({ value, search, onSearchChange, onChange, label = 'Donor', error, householdDetail = (giver) => `Household · gift recorded to ${giver}` }, ref) {
  const [debounced] = useDebouncedValue(search, 200);
  const typing = value === null || search !== value.label;
  const { people, households } = useDonorChoices(typing ? debounced : '');
  const options = useMemo<Option[]>(() => {
    const found: Option[] = [];
    const householdNames = new Map((households.data?.data ?? []).map((h) => [h.id, h.name]));
    for (const c of people.data?.data ?? []) {
      const name = c.person ? `${c.person.firstName} ${c.person.lastName}`.trim() : (c.company?.name ?? `Contact ${c.id}`);
      const phone = c.phones.find((p) => p.isPrimary)?.value ?? c.phones[0]?.value;
      const household = c.householdId ? householdNames.get(c.householdId) : undefined;
      found.push({ value: `c:${c.id}`, label: name, detail: [phone, household].filter(Boolean).join(' · '), contactId: c.id });
    }
    for (const h of households.data?.data ?? []) {
      if (!h.primaryContact) continue;
      const giver = `${h.primaryContact.firstName} ${h.primaryContact.lastName}`.trim();
      found.push({ value: `h:${h.id}`, label: `${h.name} (${giver})`, detail: householdDetail(giver), contactId: h.primaryContact.id, householdId: h.id });
    }
    // The picked donor stays an option, so the field keeps showing them.
    if (value && !found.some((o) => o.contactId === value.contactId && o.label === value.label)) {
      found.unshift({ value: `p:${value.contactId}`, label: value.label, detail: '', contactId: value.contactId });
    }
    return found;
  }, [people.data, households.data, value, householdDetail]);
  const selected = value ? (options.find((o) => o.contactId === value.contactId && o.label === value.label)?.value ?? null) : null;
  const loading = typing && debounced.trim() !== '' && (people.isFetching || households.isFetching);

  return (
    <Select ref={ref} label={label} placeholder="Name, phone or household" searchable data={options} value={selected}
      searchValue={search} onSearchChange={(s) => {
        onSearchChange(s);
        if (value && s !== value.label) onChange(null);
      }}
      filter={({ options: all }) => all} openOnFocus={false} allowDeselect={false} error={error}
      nothingFoundMessage={!typing || debounced.trim() === '' ? 'Type a name, phone digits or a household' : loading ? 'Looking…' : 'Nobody matches: leave the field empty for an anonymous gift'}
      renderOption={({ option }) => {
        const o = options.find((x) => x.value === option.value);
        return (
          <Group gap={6} wrap="nowrap">
            <Text size="sm">{option.label}</Text>
            {o?.detail && <Text size="xs" c="dimmed">{o.detail}</Text>}
          </Group>
        );
      }}
      onChange={(v) => {
        const o = options.find((x) => x.value === v);
        if (o) {
          onChange({ contactId: o.contactId, label: o.label, householdId: o.householdId });
          onSearchChange(o.label);
        }
      }}
      comboboxProps={{ withinPortal: true }} style={{ flex: '2 1 220px' }} />
  );
});
