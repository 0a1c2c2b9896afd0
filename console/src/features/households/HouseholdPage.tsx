import { Anchor, Badge, Breadcrumbs, Button, Card, Group, Modal, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ErrorAlert, errorMessage, Loading, Page, useFormat, useSignedIn } from '../../shared';
import { ConfirmDialog } from '../../shared/confirm';
import { addressLine, ROLES, useHousehold, useHouseholdActions, type Household, type Role } from './api';
import { MemberRows, type Row } from './MemberRows';
import { PersonPicker, type Picked } from './PersonPicker';
import { Refusal } from './Refusal';

/** A household's page: members with roles, address, giving together and primary contact; with contacts:write, every change. */
export function HouseholdPage() {
  const id = Number(useParams().id);
  const household = useHousehold(id);
  if (household.isPending) return <Page title="Household"><Loading /></Page>;
  if (household.isError) {
    return (
      <Page title="Household">
        <ErrorAlert error={household.error} />
        <Text><Anchor component={Link} to="/households">Back to Households</Anchor></Text>
      </Page>
    );
  }
  return <HouseholdView household={household.data} />;
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card withBorder component="section" aria-label={title}>
      <Title order={2} size="h4" mb="xs">{title}</Title>
      {children}
    </Card>
  );
}

function HouseholdView({ household: h }: { household: Household }) {
  const f = useFormat();
  const { can } = useSignedIn();
  const manage = can('contacts:write');
  const navigate = useNavigate();
  const actions = useHouseholdActions(h.id);
  const [editing, edit] = useDisclosure(false);
  const [deleting, askDelete] = useDisclosure(false);
  const [removing, setRemoving] = useState<Row | null>(null);
  const failed = (what: string) => (err: unknown) => notifications.show({ color: 'red', title: what, message: errorMessage(err) });
  const address = addressLine(h.address);
  const rows: Row[] = h.members.map((m) => ({
    id: m.contact.id, name: `${m.contact.firstName} ${m.contact.lastName}`, role: m.role,
    detail: m.contact.dateOfBirth ? `Born ${f.date(m.contact.dateOfBirth)}` : undefined,
  }));
  const last = h.members.length === 1;

  return (
    <Page title={h.name} actions={manage && (
      <Group gap="xs">
        <Button onClick={edit.open}>Edit details</Button>
        <Button variant="default" color="red" onClick={askDelete.open}>Delete household</Button>
      </Group>
    )}>
      <Breadcrumbs>
        <Anchor component={Link} to="/households">Households</Anchor>
        <Text>{h.name}</Text>
      </Breadcrumbs>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Section title="Members">
          <Stack gap="sm">
            <MemberRows rows={rows} editable={manage} linkPeople caption={`Members of ${h.name}`}
              onRole={(row, role) => actions.setRole.mutate({ contactId: row.id, role }, {
                onSuccess: () => notifications.show({ color: 'green', message: `${row.name} is now ${role}` }),
                onError: failed(`${row.name}'s role was not changed`),
              })}
              onRemove={setRemoving} />
            {manage && <AddMember household={h} />}
          </Stack>
        </Section>
        <Section title="Details">
          <Stack gap={6}>
            <Text><Text span fw={600}>Primary contact: </Text>
              {h.primaryContact ? <Anchor component={Link} to={`/people/${h.primaryContact.id}`}>{h.primaryContact.firstName} {h.primaryContact.lastName}</Anchor> : 'none'}
            </Text>
            <Text><Text span fw={600}>Address: </Text>{address || <Text span c="dimmed">none yet{manage ? ' (Edit details to add one)' : ''}</Text>}</Text>
            <Group gap="xs">
              <Text fw={600}>Giving:</Text>
              {h.givingTogether ? <Badge variant="light">Together</Badge> : <Badge variant="light" color="gray">Each person</Badge>}
            </Group>
            <Text size="sm" c="dimmed">
              {h.givingTogether ? 'One giving statement goes to the household for everyone’s gifts.' : 'Each person receives their own giving statement.'}
            </Text>
          </Stack>
        </Section>
      </SimpleGrid>

      {manage && <EditDetails household={h} opened={editing} onClose={edit.close} />}
      <ConfirmDialog opened={removing !== null} onClose={() => { setRemoving(null); actions.remove.reset(); }} title={`Remove ${removing?.name ?? ''}?`}
        confirmLabel="Remove" loading={actions.remove.isPending} error={actions.remove.error}
        onConfirm={() => removing && actions.remove.mutate(removing.id, {
          onSuccess: () => {
            notifications.show({ color: 'green', message: last ? `${removing.name} removed; ${h.name} had nobody left and was deleted` : `${removing.name} removed from ${h.name}` });
            setRemoving(null);
            if (last) navigate('/households');
          },
        })}>
        <Text>{removing?.name} leaves {h.name}. They stay in People with everything else about them.</Text>
        {last && <Text fw={600}>{removing?.name} is the last member: the household will be deleted too.</Text>}
      </ConfirmDialog>
      <ConfirmDialog opened={deleting} onClose={() => { askDelete.close(); actions.destroy.reset(); }} title={`Delete ${h.name}?`}
        confirmLabel="Delete household" loading={actions.destroy.isPending} error={actions.destroy.error}
        onConfirm={() => actions.destroy.mutate(undefined, {
          onSuccess: () => { notifications.show({ color: 'green', message: `${h.name} deleted` }); navigate('/households'); },
        })}>
        <Text>The household, its address and its giving-together setting are removed. Its {h.members.length === 1 ? 'person stays' : `${h.members.length} people stay`} in People, and their gifts stay with each person.</Text>
      </ConfirmDialog>
    </Page>
  );
}

function AddMember({ household }: { household: Household }) {
  const { add } = useHouseholdActions(household.id);
  const [picked, setPicked] = useState<Picked | null>(null);
  const [role, setRole] = useState<Role>('Child');

  return (
    <Stack gap="xs">
      <Group align="flex-end" gap="xs">
        <PersonPicker label="Add a person" householdId={household.id} exclude={household.members.map((m) => m.contact.id)} onPick={(p) => { add.reset(); setPicked(p); }} />
        <Select label="As" data={[...ROLES]} value={role} onChange={(r) => r && setRole(r as Role)} allowDeselect={false} w={110} />
      </Group>
      {picked && (
        <Group gap="xs">
          <Text size="sm">Add <b>{picked.name}</b> as {role}?</Text>
          <Button size="xs" loading={add.isPending}
            onClick={() => add.mutate({ contactId: picked.id, role }, {
              onSuccess: () => { notifications.show({ color: 'green', message: `${picked.name} added to ${household.name}` }); setPicked(null); },
            })}>
            Add
          </Button>
          <Button size="xs" variant="default" onClick={() => { setPicked(null); add.reset(); }}>Cancel</Button>
        </Group>
      )}
      <Refusal error={add.error} title="Not added" />
    </Stack>
  );
}

function EditDetails({ household: h, opened, onClose }: { household: Household; opened: boolean; onClose(): void }) {
  const { update } = useHouseholdActions(h.id);
  const initial = () => ({
    name: h.name, street: h.address?.street ?? '', city: h.address?.city ?? '', country: h.address?.country ?? '',
    givingTogether: h.givingTogether, primaryContactId: h.primaryContact ? String(h.primaryContact.id) : null,
  });
  const [fields, setFields] = useState(initial);
  useEffect(() => {
    if (opened) setFields(initial());
  }, [opened]); // eslint-disable-line react-hooks/exhaustive-deps
  const open = opened;
  const close = () => { onClose(); update.reset(); setFields(initial()); };
  const text = (key: 'name' | 'street' | 'city' | 'country') => ({ value: fields[key], onChange: (e: { currentTarget: { value: string } }) => setFields({ ...fields, [key]: e.currentTarget.value }) });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const street = fields.street.trim(), city = fields.city.trim(), country = fields.country.trim();
    try {
      await update.mutateAsync({
        name: fields.name.trim(),
        address: street || city || country ? { street: street || null, city: city || null, country: country || null } : null,
        givingTogether: fields.givingTogether,
        ...(fields.primaryContactId ? { primaryContactId: Number(fields.primaryContactId) } : {}),
      });
      notifications.show({ color: 'green', message: `${fields.name.trim() || h.name} saved` });
      onClose();
    } catch {
      // Shown in the dialog; what was typed stays.
    }
  };

  return (
    <Modal opened={open} onClose={close} title={`Edit ${h.name}`} centered size="lg">
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput label="Household name" required {...text('name')} />
          <Select label="Primary contact" description="Who the church writes to about the household" allowDeselect={false}
            data={h.members.map((m) => ({ value: String(m.contact.id), label: `${m.contact.firstName} ${m.contact.lastName}` }))}
            value={fields.primaryContactId} onChange={(v) => setFields({ ...fields, primaryContactId: v })} />
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextInput label="Street" {...text('street')} autoComplete="off" />
            <TextInput label="City" {...text('city')} autoComplete="off" />
            <TextInput label="Country" {...text('country')} autoComplete="off" />
          </SimpleGrid>
          <Switch label="Give together" description="One giving statement for the household instead of one per person"
            checked={fields.givingTogether} onChange={(e) => setFields({ ...fields, givingTogether: e.currentTarget.checked })} />
          <ErrorAlert error={update.error} title="Not saved" />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>Cancel</Button>
            <Button type="submit" loading={update.isPending}>Save</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
