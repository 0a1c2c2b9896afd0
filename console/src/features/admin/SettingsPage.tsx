import { Button, Group, Paper, Select, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, ErrorAlert, Loading } from '../../shared';
import { useSaveTenant, useTenant, type TenantChanges } from './api';
import { AdminPage } from './sections';

type Form = Required<Pick<TenantChanges, 'name' | 'timeZone' | 'currency' | 'allowRegistration'>>;

/** The church's settings (PUT /api/tenants/current, roles:write). */
export function SettingsPage() {
  const tenant = useTenant();
  const save = useSaveTenant();
  const [form, setForm] = useState<Form>();
  useEffect(() => {
    if (tenant.data && !form) setForm({ name: tenant.data.name, timeZone: tenant.data.timeZone, currency: tenant.data.currency, allowRegistration: tenant.data.allowRegistration });
  }, [tenant.data, form]);
  const zones = useMemo(() => (typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []), []);
  const field = save.error instanceof ApiError ? save.error.field : undefined;
  const fieldError = (f: string) => (field === f && save.error instanceof ApiError ? save.error.fieldMessage : undefined);
  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((f) => (f ? { ...f, [key]: value } : f));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (form) save.mutate({ ...form, currency: form.currency.toUpperCase() }, { onSuccess: () => notifications.show({ color: 'green', message: 'Church settings saved' }) });
  };

  return (
    <AdminPage title="Church settings">
      <ErrorAlert error={tenant.error} />
      {!form ? (tenant.isPending && <Loading />) : (
        <Paper withBorder p="md" component="form" onSubmit={submit} aria-label="Church settings">
          <Stack>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput label="Church name" required value={form.name} onChange={(e) => set('name', e.currentTarget.value)} error={fieldError('name')} />
              <TextInput label="Sign-in name" value={tenant.data?.slug ?? ''} readOnly description="People type this as the church when they sign in; it does not change" />
              <Select label="Time zone" searchable required data={zones.includes(form.timeZone) ? zones : [form.timeZone, ...zones]} value={form.timeZone} allowDeselect={false}
                onChange={(v) => v && set('timeZone', v)} error={fieldError('timeZone')} description="“Today”, weeks and months are counted in it" />
              <TextInput label="Currency" required maxLength={3} value={form.currency} onChange={(e) => set('currency', e.currentTarget.value.toUpperCase())}
                error={fieldError('currency')} description="Three-letter code, e.g. UGX, KES, USD, GBP" />
            </SimpleGrid>
            <Switch label="Let people create their own account (self-registration)" checked={form.allowRegistration} onChange={(e) => set('allowRegistration', e.currentTarget.checked)} />
            {!field && <ErrorAlert error={save.error} title="Not saved" />}
            <Text size="xs" c="dimmed">A new time zone or currency shows everywhere after the next sign-in.</Text>
            <Group justify="flex-end">
              <Button type="submit" loading={save.isPending}>Save settings</Button>
            </Group>
          </Stack>
        </Paper>
      )}
    </AdminPage>
  );
}
