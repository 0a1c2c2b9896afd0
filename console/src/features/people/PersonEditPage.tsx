import { Button, Group, Select, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, ErrorAlert, Loading, Page } from '../../shared';
import { usePerson, useSavePerson, type Person, type PersonBody } from './api';
import { personName, primary } from './names';

const STATUSES = ['Active', 'Inactive', 'MovedAway', 'TransferredToAnotherChurch', 'Deceased'] as const;
const STATUS_LABELS: Record<string, string> = { MovedAway: 'Moved away', TransferredToAnotherChurch: 'Transferred to another church' };

interface Fields {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  dateOfBirth: string;
  status: (typeof STATUSES)[number];
}

const EMPTY: Fields = { firstName: '', lastName: '', email: '', phone: '', dateOfBirth: '', status: 'Active' };

function fieldsOf(p: Person): Fields {
  return {
    firstName: p.person?.firstName ?? '', lastName: p.person?.lastName ?? '', email: primary(p.emails), phone: primary(p.phones),
    dateOfBirth: p.person?.dateOfBirth ?? '', status: p.status,
  };
}

/** The API's validation path → the form field it belongs beside. */
const FIELD_OF: Record<string, keyof Fields> = { emails: 'email', phones: 'phone', firstName: 'firstName', lastName: 'lastName', dateOfBirth: 'dateOfBirth', status: 'status' };

/** Replaces the primary value of a list and keeps the others. */
function withPrimary(values: { value: string; isPrimary: boolean }[], value: string) {
  const others = values.filter((v) => v.value !== primary(values)).map((v) => ({ value: v.value, isPrimary: false }));
  return value ? [{ value, isPrimary: true }, ...others] : others;
}

/** Create or edit a person; the API's message for a field shows beside that field, and what was typed stays. */
export function PersonEditPage() {
  const { id: idParam } = useParams();
  const id = idParam ? Number(idParam) : undefined;
  const person = usePerson(id ?? 0);
  if (id !== undefined && person.isPending) return <Page title="Edit person"><Loading /></Page>;
  if (id !== undefined && person.isError) return <Page title="Edit person"><ErrorAlert error={person.error} /></Page>;
  return <PersonForm id={id} existing={id !== undefined ? person.data : undefined} />;
}

function PersonForm({ id, existing }: { id?: number; existing?: Person }) {
  const navigate = useNavigate();
  const save = useSavePerson(id);
  const [fields, setFields] = useState<Fields>(existing ? fieldsOf(existing) : EMPTY);
  useEffect(() => save.reset(), [fields]); // eslint-disable-line react-hooks/exhaustive-deps
  const error = save.error;
  const field = error instanceof ApiError && error.field ? FIELD_OF[error.field] : undefined;
  const errorOf = (name: keyof Fields) => (field === name && error instanceof ApiError ? error.fieldMessage : undefined);
  const set = (name: keyof Fields) => (e: { currentTarget: { value: string } }) => setFields({ ...fields, [name]: e.currentTarget.value });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body: PersonBody = {
      status: fields.status,
      person: { firstName: fields.firstName.trim(), lastName: fields.lastName.trim(), dateOfBirth: fields.dateOfBirth || null },
      emails: withPrimary(existing?.emails ?? [], fields.email.trim()),
      phones: withPrimary(existing?.phones ?? [], fields.phone.trim()),
    };
    try {
      const saved = await save.mutateAsync(body);
      notifications.show({ color: 'green', message: `${personName(saved)} saved` });
      navigate(`/people/${saved.id}`);
    } catch {
      // Shown beside the field, or above the buttons.
    }
  };

  const title = existing ? `Edit ${personName(existing)}` : 'Add a person';
  return (
    <Page title={title}>
      <form onSubmit={submit} noValidate>
        <Stack maw={640}>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="First name" required value={fields.firstName} onChange={set('firstName')} error={errorOf('firstName')} />
            <TextInput label="Last name" required value={fields.lastName} onChange={set('lastName')} error={errorOf('lastName')} />
            <TextInput label="Email" type="email" value={fields.email} onChange={set('email')} error={errorOf('email')} autoComplete="off" />
            <TextInput label="Phone" type="tel" value={fields.phone} onChange={set('phone')} error={errorOf('phone')} autoComplete="off" />
            <TextInput label="Date of birth" type="date" value={fields.dateOfBirth} onChange={set('dateOfBirth')} error={errorOf('dateOfBirth')} />
            <Select label="Status" data={STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s] ?? s }))} value={fields.status}
              onChange={(v) => v && setFields({ ...fields, status: v as Fields['status'] })} allowDeselect={false} error={errorOf('status')} />
          </SimpleGrid>
          {error && !field && <ErrorAlert error={error} title="Not saved" />}
          <Group>
            <Button type="submit" loading={save.isPending}>Save</Button>
            <Button variant="default" component={Link} to={id ? `/people/${id}` : '/people'}>Cancel</Button>
          </Group>
        </Stack>
      </form>
    </Page>
  );
}
