import { Button, Group, Paper, Select, SimpleGrid, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, ErrorAlert, Loading } from '../../shared';
import { useSaveTenant, useTenant, type TenantChanges } from './api';
import { AdminPage } from './sections';

type Form = Required<Pick<TenantChanges, 'name' | 'timeZone' | 'currency' | 'allowRegistration' | 'paperSize'>> & {
  address: string;
  taxNumber: string;
  statementClosing: string;
  replyTo: string;
};

/** The church's settings (PUT /api/tenants/current, roles:write). */
export function SettingsPage() {
  const tenant = useTenant();
  const save = useSaveTenant();
  const [form, setForm] = useState<Form>();
  useEffect(() => {
    const t = tenant.data;
    if (t && !form) {
      setForm({
        name: t.name, timeZone: t.timeZone, currency: t.currency, allowRegistration: t.allowRegistration, paperSize: t.paperSize,
        address: t.address ?? '', taxNumber: t.taxNumber ?? '', statementClosing: t.statementClosing ?? '', replyTo: t.replyTo ?? '',
      });
    }
  }, [tenant.data, form]);
  const zones = useMemo(() => (typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []), []);
  const field = save.error instanceof ApiError ? save.error.field : undefined;
  const fieldError = (f: string) => (field === f && save.error instanceof ApiError ? save.error.fieldMessage : undefined);
  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((f) => (f ? { ...f, [key]: value } : f));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // A blank text clears it (null), as the API takes it.
    const text = (v: string) => (v.trim() === '' ? null : v);
    if (form) save.mutate({
      ...form, currency: form.currency.toUpperCase(),
      address: text(form.address), taxNumber: text(form.taxNumber), statementClosing: text(form.statementClosing), replyTo: text(form.replyTo),
    }, { onSuccess: () => notifications.show({ color: 'green', message: 'Church settings saved' }) });
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
            <TextInput label="Reply-to email for messages" type="email" value={form.replyTo} onChange={(e) => set('replyTo', e.currentTarget.value)} error={fieldError('replyTo')}
              description="Where replies to the church’s messages go; empty: the sender’s own email" />
            <Title order={2} size="h4" mt="sm">Giving statements</Title>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <Textarea label="Church address" autosize minRows={2} value={form.address} onChange={(e) => set('address', e.currentTarget.value)} error={fieldError('address')}
                description="Printed at the top of each statement" />
              <Stack gap="sm">
                <TextInput label="Registration or tax number" value={form.taxNumber} onChange={(e) => set('taxNumber', e.currentTarget.value)} error={fieldError('taxNumber')} />
                <Select label="Paper size" data={['A4', 'Letter']} value={form.paperSize} allowDeselect={false} onChange={(v) => v && set('paperSize', v as Form['paperSize'])} error={fieldError('paperSize')} />
              </Stack>
            </SimpleGrid>
            <Textarea label="Closing sentence" autosize minRows={2} value={form.statementClosing} onChange={(e) => set('statementClosing', e.currentTarget.value)} error={fieldError('statementClosing')}
              description="Printed at the end of each statement, e.g. “No goods or services were provided in exchange for these gifts.”" />
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
