import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useGroupChoices } from './api';

export interface PickedGroup {
  id: number;
  name: string;
}

/**
 * A group the user can see, by type-ahead on its name (the first 25 by name show before typing).
 * `value` is the chosen group (shown even when the search no longer lists it).
 */
export function GroupPicker({ label, value, onChange, description, clearable = false, placeholder = 'Type a group name' }: {
  label: string;
  value: PickedGroup | null;
  onChange(group: PickedGroup | null): void;
  description?: string;
  clearable?: boolean;
  placeholder?: string;
}) {
  const [search, setSearch] = useState('');
  const [shown, setShown] = useState<string>();
  // While the field shows the chosen group, the list is the first groups by name, not a search for it.
  const [debounced] = useDebouncedValue(search === shown ? '' : search, 250);
  const groups = useGroupChoices(debounced);
  const options = (groups.data?.data ?? []).map((g) => ({ value: String(g.id), name: g.name, label: `${g.name} · ${g.category.name}` }));
  if (value && !options.some((o) => o.value === String(value.id))) options.unshift({ value: String(value.id), name: value.name, label: value.name });

  return (
    <Select label={label} description={description} placeholder={placeholder} searchable clearable={clearable}
      data={options.map(({ value: v, label: l }) => ({ value: v, label: l }))}
      value={value ? String(value.id) : null} searchValue={search} onSearchChange={setSearch}
      nothingFoundMessage={groups.isFetching ? 'Searching…' : 'No group you can see matches'} filter={({ options: o }) => o}
      onChange={(id) => {
        const option = options.find((o) => o.value === id);
        setShown(option?.label);
        onChange(option ? { id: Number(option.value), name: option.name } : null);
      }}
      miw={220} style={{ flex: 1 }} />
  );
}
