import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client';
import { errorMessage, unwrap } from '../api/errors';
import { useSession } from '../session/session';

export interface PickedGroup {
  id: number;
  name: string;
}

/** How many groups a search answers: the first 25 by name whose name contains it. */
const CHOICES = 25;

/**
 * Groups the user can see whose name contains q (the first 25 by name; all groups for an empty q),
 * optionally of one category: the server searches, so a church with thousands of groups finds any.
 * Under ['groups'], so creating or renaming a group refreshes it.
 */
export function useGroupChoices(q: string, { categoryId, enabled = true }: { categoryId?: number; enabled?: boolean } = {}) {
  const { can } = useSession();
  const search = q.trim();
  return useQuery({
    queryKey: ['groups', 'choices', search, categoryId ?? null],
    enabled: enabled && can('groups:read'),
    queryFn: ({ signal }) => unwrap(api.GET('/api/groups', { params: { query: { q: search || undefined, categoryId, limit: CHOICES } }, signal })),
    placeholderData: keepPreviousData,
  });
}

/**
 * A group the user can see, by type-ahead on its name (the first 25 by name show before typing),
 * optionally only groups of `categoryId`. `value` is the chosen group, shown even when the search no
 * longer lists it; its option keeps one label, so a new search never rewrites what is typed.
 */
export function GroupPicker({
  label, value, onChange, categoryId, description, error, required = false, clearable = false, placeholder = 'Type a group name',
}: {
  label: string;
  value: PickedGroup | null;
  onChange(group: PickedGroup | null): void;
  categoryId?: number;
  description?: string;
  error?: string;
  required?: boolean;
  clearable?: boolean;
  placeholder?: string;
}) {
  const [search, setSearch] = useState('');
  // The label the chosen group was picked by; a group chosen elsewhere shows its name.
  const [picked, setPicked] = useState<{ id: number; label: string }>();
  const valueLabel = value ? (picked?.id === value.id ? picked.label : value.name) : undefined;
  // While the field shows the chosen group, the list is the first groups by name, not a search for it.
  const [debounced] = useDebouncedValue(value && search === valueLabel ? '' : search, 250);
  const groups = useGroupChoices(debounced, { categoryId });
  const options = (groups.data?.data ?? []).map((g) => ({
    // Its category beside the name, unless the picker offers one category only.
    value: String(g.id), name: g.name, label: g.id === value?.id ? valueLabel! : categoryId === undefined ? `${g.name} · ${g.category.name}` : g.name,
  }));
  if (value && !options.some((o) => o.value === String(value.id))) options.unshift({ value: String(value.id), name: value.name, label: valueLabel! });

  return (
    <Select label={label} description={description} placeholder={placeholder} searchable clearable={clearable} required={required}
      data={options.map(({ value: v, label: l }) => ({ value: v, label: l }))}
      value={value ? String(value.id) : null} searchValue={search} onSearchChange={setSearch}
      nothingFoundMessage={groups.isFetching ? 'Searching…' : 'No group you can see matches'} filter={({ options: o }) => o}
      error={error ?? (groups.error ? errorMessage(groups.error) : undefined)}
      onChange={(id) => {
        const option = options.find((o) => o.value === id);
        setPicked(option ? { id: Number(option.value), label: option.label } : undefined);
        onChange(option ? { id: Number(option.value), name: option.name } : null);
      }}
      miw={220} style={{ flex: 1 }} />
  );
}
