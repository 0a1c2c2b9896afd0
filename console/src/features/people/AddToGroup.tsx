import { Button, Group, Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { ErrorAlert, useGroupChoices } from '../../shared';
import { useAddToGroup } from './api';

/** Adds the person to a group (as a member), chosen by typing part of its name. */
export function AddToGroup({ contactId, exclude, onAdded }: { contactId: number; exclude: number[]; onAdded(groupName: string): void }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const [groupId, setGroupId] = useState<string | null>(null);
  const choices = useGroupChoices(debounced);
  const add = useAddToGroup(contactId);
  const options = (choices.data?.data ?? []).filter((g) => !exclude.includes(g.id)).map((g) => ({ value: String(g.id), label: g.name }));
  const chosen = options.find((o) => o.value === groupId);

  return (
    <Group align="flex-end" gap="xs">
      <Select label="Add to a group" placeholder="Type a group's name" searchable data={options} value={groupId} onChange={setGroupId}
        searchValue={search} onSearchChange={setSearch} nothingFoundMessage="No group matches" style={{ flex: 1, minWidth: 180 }} />
      <Button disabled={!chosen} loading={add.isPending}
        onClick={() => chosen && add.mutate(Number(chosen.value), { onSuccess: () => { onAdded(chosen.label); setGroupId(null); setSearch(''); } })}>
        Add
      </Button>
      {add.error && <ErrorAlert error={add.error} title="Not added" />}
    </Group>
  );
}
