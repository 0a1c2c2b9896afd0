import { Button, Card, Group, Loader, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ErrorAlert, Page, useSession } from '../../shared';
import { NoAccess } from './NoAccess';
import { useContact, useCreateHousehold, type Role } from './api';
import { MemberRows, type Row } from './MemberRows';
import { PersonPicker } from './PersonPicker';
import { Refusal } from './Refusal';

/** The role a newly picked person starts with: the first is the Head, then a Spouse, then Children. */
function nextRole(rows: Row[]): Role {
  if (!rows.some((r) => r.role === 'Head')) return 'Head';
  if (!rows.some((r) => r.role === 'Spouse')) return 'Spouse';
  return 'Child';
}

/** Create a family from people picked by search (`?contact=` starts with that person), with roles, address and giving together. */
export function HouseholdNewPage() {
  const { can } = useSession();
  const [params] = useSearchParams();
  const startWith = params.get('contact') ? Number(params.get('contact')) : undefined;
  const first = useContact(startWith);
  const navigate = useNavigate();
  const create = useCreateHousehold();
  const [rows, setRows] = useState<Row[]>([]);
  const [name, setName] = useState('');
  const [address, setAddress] = useState({ street: '', city: '', country: '' });
  const [givingTogether, setGivingTogether] = useState(false);

  useEffect(() => {
    const p = first.data;
    if (p?.person && !rows.some((r) => r.id === p.id)) setRows((current) => [{ id: p.id, name: `${p.person!.firstName} ${p.person!.lastName}`, role: nextRole(current) }, ...current]);
  }, [first.data]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => create.reset(), [rows]); // eslint-disable-line react-hooks/exhaustive-deps

  if (!can('contacts:write')) return <NoAccess />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const street = address.street.trim(), city = address.city.trim(), country = address.country.trim();
    try {
      const saved = await create.mutateAsync({
        ...(name.trim() ? { name: name.trim() } : {}),
        address: street || city || country ? { street: street || null, city: city || null, country: country || null } : null,
        givingTogether,
        members: rows.map((r) => ({ contactId: r.id, role: r.role })),
      });
      notifications.show({ color: 'green', message: `${saved.name} created with ${saved.members.length} ${saved.members.length === 1 ? 'person' : 'people'}` });
      navigate(`/households/${saved.id}`);
    } catch {
      // Shown above the buttons; what was picked and typed stays.
    }
  };
  const field = (key: keyof typeof address) => ({ value: address[key], onChange: (e: { currentTarget: { value: string } }) => setAddress({ ...address, [key]: e.currentTarget.value }) });

  return (
    <Page title="New household">
      <form onSubmit={submit} noValidate>
        <Stack maw={720}>
          <Card withBorder component="section" aria-label="People">
            <Title order={2} size="h4" mb="xs">People</Title>
            <Stack gap="sm">
              {first.isPending && startWith !== undefined && <Loader size="sm" role="status" aria-label="Loading the first person" />}
              <ErrorAlert error={first.error} />
              {rows.length === 0 ? <Text c="dimmed">Nobody yet. Find the people of the family below; the first one is the head of the household.</Text> : (
                <MemberRows rows={rows} editable linkPeople={false} caption="People of the new household"
                  onRole={(row, role) => setRows(rows.map((r) => (r.id === row.id ? { ...r, role } : r)))}
                  onRemove={(row) => setRows(rows.filter((r) => r.id !== row.id))} />
              )}
              <PersonPicker label="Add a person" exclude={rows.map((r) => r.id)} onPick={(p) => setRows([...rows, { ...p, role: nextRole(rows) }])} />
            </Stack>
          </Card>
          <TextInput label="Household name" value={name} onChange={(e) => setName(e.currentTarget.value)}
            description="Leave empty to name it after the head: “Mwangi household”" />
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextInput label="Street" {...field('street')} autoComplete="off" />
            <TextInput label="City" {...field('city')} autoComplete="off" />
            <TextInput label="Country" {...field('country')} autoComplete="off" />
          </SimpleGrid>
          <Switch label="Give together" description="One giving statement for the household instead of one per person"
            checked={givingTogether} onChange={(e) => setGivingTogether(e.currentTarget.checked)} />
          <Refusal error={create.error} title="Not created" />
          <Group>
            <Button type="submit" loading={create.isPending} disabled={rows.length === 0}>Create household</Button>
            <Button variant="default" component={Link} to={startWith ? `/people/${startWith}` : '/households'}>Cancel</Button>
          </Group>
        </Stack>
      </form>
    </Page>
  );
}
