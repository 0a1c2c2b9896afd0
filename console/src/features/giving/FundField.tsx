import { Select } from '@mantine/core';
import { forwardRef, useEffect, useState, type KeyboardEvent } from 'react';

/**
 * A fund picked by typing part of its name: Enter takes the first fund that matches what was typed
 * (however fast it was typed), ArrowDown and Enter another one; Enter on a fund already shown
 * submits the form.
 */
export const FundField = forwardRef<HTMLInputElement, {
  label: string;
  options: { value: string; label: string }[];
  value: string | null;
  onChange(value: string): void;
  placeholder?: string;
}>(function FundField({ label, options, value, onChange, placeholder }, ref) {
  const current = options.find((o) => o.value === value)?.label ?? '';
  const [search, setSearch] = useState(current);
  useEffect(() => setSearch(current), [current]);

  const keys = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter' || search === current || search.trim() === '') return;
    const typed = search.trim().toLowerCase();
    const match = options.find((o) => o.label.toLowerCase().startsWith(typed)) ?? options.find((o) => o.label.toLowerCase().includes(typed));
    if (!match) return;
    e.preventDefault();
    onChange(match.value);
    setSearch(match.label);
  };

  return (
    <Select ref={ref} label={label} data={options} value={value} placeholder={placeholder} allowDeselect={false} searchable openOnFocus={false}
      searchValue={search} onSearchChange={setSearch} onKeyDownCapture={keys}
      onChange={(v) => v && onChange(v)} nothingFoundMessage="No fund by that name" style={{ flex: '1 1 150px' }} />
  );
});
