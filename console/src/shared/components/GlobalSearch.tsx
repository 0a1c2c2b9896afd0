import { Combobox, Kbd, Loader, Text, TextInput, useCombobox } from '@mantine/core';
import { useDebouncedValue, useHotkeys } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../api/client';
import { errorMessage, unwrap } from '../api/errors';
import { useSession } from '../session/session';

/** What the header's search finds, where each result opens, and the permission that reads it (GET /api/search). */
const KINDS = [
  { type: 'contacts', label: 'People', permission: 'contacts:read', path: (id: number) => `/people/${id}` },
  { type: 'households', label: 'Families', permission: 'contacts:read', path: (id: number) => `/households/${id}` },
  { type: 'groups', label: 'Groups', permission: 'groups:read', path: (id: number) => `/groups/${id}` },
  { type: 'tasks', label: 'Tasks', permission: 'tasks:read', path: (id: number) => `/follow-up/tasks/${id}` },
] as const;

type Kind = (typeof KINDS)[number]['type'];
interface Hit { id: number; title: string; subtitle: string | null }

/**
 * The one search field of the header (console.md "Look and feel"): people, families, groups and
 * tasks from anywhere, only the kinds the user may read; `/` or Ctrl+K focuses it, the arrow keys
 * move through the results and Enter opens one.
 */
export function GlobalSearch() {
  const { can } = useSession();
  const navigate = useNavigate();
  const input = useRef<HTMLInputElement>(null);
  const [q, setQ] = useState('');
  const [debounced] = useDebouncedValue(q.trim(), 200);
  const kinds = KINDS.filter((k) => can(k.permission));
  const combobox = useCombobox({ onDropdownClose: () => combobox.resetSelectedOption() });
  const focus = (event: KeyboardEvent) => {
    event.preventDefault();
    input.current?.focus();
    input.current?.select();
  };
  useHotkeys([['/', focus]]);
  useHotkeys([['mod+K', focus]], []);

  const search = useQuery({
    queryKey: ['search', debounced, kinds.map((k) => k.type).join(',')],
    enabled: debounced.length >= 2 && kinds.length > 0,
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => unwrap(api.GET('/api/search', { params: { query: { q: debounced, types: kinds.map((k) => k.type).join(','), limit: 5 } }, signal })),
  });

  const results = debounced.length >= 2 ? search.data?.results : undefined;
  const groups = kinds
    .map((k) => ({ ...k, hits: ((results?.[k.type as Kind] ?? []) as Hit[]), total: search.data?.totals[k.type as Kind] ?? 0 }))
    .filter((g) => g.hits.length > 0);

  // The first result is chosen as the results arrive, so Enter opens it straight away; with none, nothing is.
  const arrived = search.data;
  const found = groups.length;
  // The field names the chosen option itself: Mantine keeps the last one the arrow keys reached, even once it is gone.
  useEffect(() => {
    const id = found > 0 && debounced.length >= 2 ? combobox.selectFirstOption() : null;
    if (!id) combobox.resetSelectedOption();
    if (id) input.current?.setAttribute('aria-activedescendant', id);
    else input.current?.removeAttribute('aria-activedescendant');
  }, [arrived, debounced, found]); // eslint-disable-line react-hooks/exhaustive-deps

  const open = (value: string) => {
    const [type, id] = value.split(':');
    const kind = KINDS.find((k) => k.type === type);
    if (!kind) return;
    navigate(kind.path(Number(id)));
    setQ('');
    combobox.closeDropdown();
    input.current?.blur();
  };

  if (kinds.length === 0) return null;
  const what = kinds.map((k) => k.label.toLowerCase()).join(', ').replace(/, ([^,]*)$/, ' and $1');
  return (
    <Combobox store={combobox} onOptionSubmit={open} withinPortal position="bottom-start" width="target" offset={4}>
      <Combobox.Target withExpandedAttribute>
        <TextInput ref={input} type="search" aria-label={`Search all ${what}`} placeholder="Search" value={q} size="sm"
          style={{ flex: 1, maxWidth: 420, minWidth: 0 }}
          rightSection={search.isFetching ? <Loader size="xs" role="status" aria-label="Searching" /> : <Kbd size="xs" visibleFrom="sm" title="Press / or Ctrl+K to search">/</Kbd>}
          rightSectionPointerEvents="none"
          onChange={(e) => { setQ(e.currentTarget.value); combobox.openDropdown(); combobox.updateSelectedOptionIndex(); }}
          onFocus={() => q.trim().length >= 2 && combobox.openDropdown()}
          onBlur={() => combobox.closeDropdown()}
          onKeyDown={(e) => { if (e.key === 'Escape') { setQ(''); combobox.closeDropdown(); } }} />
      </Combobox.Target>
      <Combobox.Dropdown hidden={q.trim().length < 2} miw={280}>
        {(search.isError || groups.length === 0) && (
          <Text size="sm" p="xs" role="status">
            {search.isError ? errorMessage(search.error) : search.isFetching || debounced !== q.trim() ? 'Searching…' : `Nothing matches “${q.trim()}”`}
          </Text>
        )}
        {/* Always there (the field's aria-controls names it), hidden while it holds no option (axe: a listbox has options). */}
        <Combobox.Options aria-label="Search results" mah={420} style={{ overflowY: 'auto', display: groups.length === 0 ? 'none' : undefined }}>
          {groups.map((g) => (
            <Combobox.Group key={g.type} label={g.total > g.hits.length ? `${g.label} (${g.hits.length} of ${g.total})` : g.label}>
              {g.hits.map((hit) => (
                <Combobox.Option key={hit.id} value={`${g.type}:${hit.id}`} aria-label={`${hit.title}${hit.subtitle ? `, ${hit.subtitle}` : ''}`}>
                  <Text size="sm" fw={500} truncate="end">{hit.title}</Text>
                  {hit.subtitle && <Text size="xs" truncate="end">{hit.subtitle}</Text>}
                </Combobox.Option>
              ))}
            </Combobox.Group>
          ))}
        </Combobox.Options>
      </Combobox.Dropdown>
    </Combobox>
  );
}
