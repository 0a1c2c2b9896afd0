import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { usePersonChoices } from './api';

export interface Picked {
  id: number;
  name: string;
}

/**
 * Finds a person by name, email or phone digits and hands them over; people already in a
 * household say so (the API refuses them with its own message).
 */
export function PersonPicker({ label, exclude, onPick, householdId }: { label: string; exclude: number[]; onPick(person: Picked): void; householdId?: number }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const people = usePersonChoices(debounced);
  const options = (people.data?.data ?? []).filter((p) => !exclude.includes(p.id)).map((p) => {
    const name = `${p.person?.firstName ?? ''} ${p.person?.lastName ?? ''}`.trim();
    const elsewhere = p.householdId != null && p.householdId !== householdId;
    return { value: String(p.id), label: elsewhere ? `${name} (in a household)` : name, name };
  });

  return (
    <Select label={label} placeholder="Type a name, email or phone" searchable data={options} value={null} clearable={false}
      searchValue={search} onSearchChange={setSearch} nothingFoundMessage={debounced.trim() ? 'Nobody matches' : 'Type to search'}
      onChange={(value) => {
        const option = options.find((o) => o.value === value);
        if (!option) return;
        onPick({ id: Number(option.value), name: option.name });
        setSearch('');
      }}
      style={{ flex: 1, minWidth: 200 }} />
  );
}
