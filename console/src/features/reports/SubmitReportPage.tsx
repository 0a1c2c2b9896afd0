import { Alert, Anchor, Button, Card, Checkbox, Group, NumberInput, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError, ErrorAlert, GroupPicker, Loading, Page, useFormat, useGroupChoices, type PickedGroup } from '../../shared';
import { useSubmit, useTemplate, type Template, type TemplateField } from './api';

type Value = string | number | boolean | null;

/** A leader fills in a report form (template) for their group and a week or month. */
export function SubmitReportPage() {
  const id = Number(useParams().id);
  const template = useTemplate(id);
  if (template.isPending) return <Page title="Report form"><Loading /></Page>;
  if (template.isError) return <Page title="Report form"><ErrorAlert error={template.error} /></Page>;
  return <SubmitForm template={template.data} />;
}

const todayLocal = () => {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

function SubmitForm({ template }: { template: Template }) {
  const f = useFormat();
  // The form's groups before any typing (the picker's first list): none, nothing to report for; one, chosen already.
  const first = useGroupChoices('', { categoryId: template.groupCategoryId });
  const submit = useSubmit(template.id);
  const [group, setGroup] = useState<PickedGroup | null>(null);
  const [period, setPeriod] = useState(todayLocal());
  const [values, setValues] = useState<Record<string, Value>>({});
  const [done, setDone] = useState<string>();
  const only = first.data?.total === 1 ? first.data.data[0] : undefined;
  const chosenGroup = group ?? (only ? { id: only.id, name: only.name } : null);

  // A 400 naming a value ("body/values/attendance is required") goes beside that field, in words.
  const err = submit.error instanceof ApiError ? submit.error : undefined;
  const named = err?.statusCode === 400 ? /^body\/values\/([A-Za-z0-9_]+) (.*)$/s.exec(err.message) : null;
  const fieldError = (fl: TemplateField) => (named && named[1] === fl.key ? `${fl.label} ${named[2]}` : undefined);
  const namedField = named && template.fields.some((fl) => fl.key === named[1]);

  const send = (e: FormEvent) => {
    e.preventDefault();
    if (!chosenGroup) return;
    const body = {
      groupId: chosenGroup.id,
      period,
      // An unticked yes/no question is a "no", not a missing answer.
      values: Object.fromEntries(template.fields
        .map((fl) => [fl.key, fl.type === 'boolean' ? values[fl.key] === true : values[fl.key]] as const)
        .filter(([, v]) => v !== undefined && v !== '' && v !== null)),
    };
    submit.mutate(body, {
      onSuccess: (s) => {
        const what = `${template.name} for ${s.group.name}, ${template.frequency === 'Monthly' ? 'month' : 'week'} of ${f.date(s.period)}`;
        setDone(what);
        setValues({});
      },
    });
  };

  return (
    <Page title={template.name} actions={<Anchor component={Link} to="/reports">All reports</Anchor>}>
      {template.description && <Text c="dimmed">{template.description}</Text>}
      {done && (
        <Alert color="green" title={<Text span fw={700} c="var(--mantine-color-text)">Thank you, your report is in</Text>} role="status">
          {done}. <Anchor component={Link} to={`/reports/forms/${template.id}/rollup`}>See who has reported</Anchor>
        </Alert>
      )}
      {first.data?.total === 0 && (
        <Alert color="yellow" title={<Text span fw={700} c="var(--mantine-color-text)">No group to report for</Text>}>You can report only for a {template.groupCategory.name.toLowerCase()} you can see. Ask an administrator to make you its leader.</Alert>
      )}
      <Card withBorder component="form" onSubmit={send} aria-label={`${template.name} form`} maw={640}>
        <Stack gap="sm">
          <GroupPicker label={template.groupCategory.name} placeholder={`Choose the ${template.groupCategory.name.toLowerCase()}`} required
            categoryId={template.groupCategoryId} value={chosenGroup} onChange={setGroup} />
          <TextInput type="date" label={template.frequency === 'Monthly' ? 'A day in the month reported' : 'A day in the week reported'} required
            description={describePeriod(template.frequency, period, f.date)} value={period} onChange={(e) => setPeriod(e.currentTarget.value)} />
          {template.fields.map((fl) => (
            <FieldInput key={fl.key} field={fl} value={values[fl.key]} error={fieldError(fl)} onChange={(v) => setValues((vs) => ({ ...vs, [fl.key]: v }))} />
          ))}
          {submit.error && !namedField && <ErrorAlert error={submit.error} title="The report was not submitted" />}
          <Group>
            <Button type="submit" loading={submit.isPending} disabled={!chosenGroup}>Submit report</Button>
          </Group>
        </Stack>
      </Card>
    </Page>
  );
}

/** The period a date falls in, as the API will file it (weeks start on Sunday). */
function describePeriod(frequency: string, day: string, date: (d: string) => string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return frequency === 'Monthly' ? 'The report is for the whole month' : 'Weeks run Sunday to Saturday';
  if (frequency === 'Monthly') return `The whole of ${new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`))}`;
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - d.getUTCDay());
  return `The week of Sunday ${date(d.toISOString().slice(0, 10))} (weeks run Sunday to Saturday)`;
}

function FieldInput({ field, value, error, onChange }: { field: TemplateField; value: Value | undefined; error?: string; onChange: (v: Value) => void }) {
  const common = { label: field.label, withAsterisk: field.required, error };
  switch (field.type) {
    case 'number':
      return <NumberInput {...common} value={typeof value === 'number' ? value : ''} onChange={(v) => onChange(v === '' ? null : Number(v))} />;
    case 'boolean':
      return <Checkbox label={field.label} checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} error={error} />;
    case 'date':
      return <TextInput {...common} type="date" value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'select':
      return <Select {...common} data={field.options ?? []} value={typeof value === 'string' ? value : null} onChange={(v) => onChange(v)} clearable={!field.required} />;
    default:
      return <Textarea {...common} autosize minRows={2} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.currentTarget.value)} />;
  }
}
