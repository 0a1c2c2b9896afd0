import { Alert, Button, Card, Group, MultiSelect, SegmentedControl, Select, SimpleGrid, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { ApiError, ErrorAlert, errorMessage, GroupPicker, Page, useFormat, useSession, type PickedGroup } from '../../shared';
import { useListChoices, useMessageTemplates, usePeopleChoices, usePreview, useSend, type MessageBody, type Preview } from './api';

/** The merge fields a message may use (src/modules/notifications/merge-fields.ts), filled in per recipient. */
export const MERGE_FIELDS = [
  { key: 'firstName', label: 'First name' },
  { key: 'lastName', label: 'Last name' },
  { key: 'churchName', label: 'Church name' },
] as const;

type Target = 'group' | 'list' | 'people';
const REASONS = { noEmail: 'No email address', optedOut: 'Opted out of email' } as const;

/** Compose a message to a group, a saved list or chosen people; preview the first recipient's text, the count and who is skipped, then send. */
export function ComposePage() {
  const { can } = useSession();
  const f = useFormat();
  const navigate = useNavigate();
  const targets = useMemo(() => [
    ...(can('groups:read') ? [{ value: 'group', label: 'A group' }] : []),
    ...(can('contacts:read') ? [{ value: 'list', label: 'A saved list' }, { value: 'people', label: 'Chosen people' }] : []),
  ], [can]);
  const [target, setTarget] = useState<Target>((targets[0]?.value as Target | undefined) ?? 'group');
  const [group, setGroup] = useState<PickedGroup | null>(null);
  const [listId, setListId] = useState<string | null>(null);
  const [people, setPeople] = useState<string[]>([]);
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const subjectRef = useRef<HTMLInputElement>(null);
  const bodyRef = useRef<HTMLTextAreaElement>(null);
  const [lastField, setLastField] = useState<'subject' | 'body'>('body');
  const preview = usePreview();
  const send = useSend();
  const templates = useMessageTemplates();
  const [templateId, setTemplateId] = useState<string | null>(null);

  const message: MessageBody | undefined = useMemo(() => {
    const audience = target === 'group' ? (group ? { groupIds: [group.id] } : undefined)
      : target === 'list' ? (listId ? { listId: Number(listId) } : undefined)
        : people.length ? { contactIds: people.map(Number) } : undefined;
    if (!audience || !subject.trim() || !body.trim()) return undefined;
    return { channel: 'Email', audience, subject, body };
  }, [target, group, listId, people, subject, body]);
  // The preview shown is for exactly this message; any change asks for a new one before sending.
  const previewed = preview.data && preview.variables && JSON.stringify(preview.variables) === JSON.stringify(message) ? preview.data : undefined;

  const insert = (key: string) => {
    const token = `{{${key}}}`;
    const el = lastField === 'subject' ? subjectRef.current : bodyRef.current;
    const value = lastField === 'subject' ? subject : body;
    const start = el?.selectionStart ?? value.length;
    const end = el?.selectionEnd ?? value.length;
    const next = value.slice(0, start) + token + value.slice(end);
    (lastField === 'subject' ? setSubject : setBody)(next);
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(start + token.length, start + token.length);
    });
  };

  const onPreview = (e: FormEvent) => {
    e.preventDefault();
    if (message) preview.mutate(message);
  };
  const onSend = () => {
    if (!message || !previewed) return;
    send.mutate(message, {
      onSuccess: (m) => {
        notifications.show({ color: 'green', message: `“${subject}” is on its way to ${f.number(m.recipientCount)} ${m.recipientCount === 1 ? 'person' : 'people'}` });
        navigate('/messages/sent');
      },
    });
  };
  // A 400 about the subject or body goes beside that field.
  const fieldError = (name: 'subject' | 'body') => {
    const err = preview.error ?? send.error;
    return err instanceof ApiError && err.statusCode === 400 && err.message.startsWith(`body/${name} `) ? err.message.replace(/^body\/\S+\s/, '') : undefined;
  };
  const shownError = (preview.error ?? send.error) && !fieldError('subject') && !fieldError('body') ? (send.error ?? preview.error) : undefined;

  if (targets.length === 0) {
    return <Page title="Compose"><Text>Sending needs permission to read groups or people. Ask an administrator.</Text></Page>;
  }
  return (
    <Page title="Compose">
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="lg">
        <Card withBorder component="form" onSubmit={onPreview} aria-label="Message">
          <Stack gap="sm">
            <SegmentedControl aria-label="Send to" value={target} onChange={(v) => setTarget(v as Target)} data={targets} fullWidth />
            {target === 'group' && <GroupPicker label="Group" description="Its active members, and those of the groups under it" required value={group} onChange={setGroup} />}
            {target === 'list' && <ListPicker value={listId} onChange={setListId} />}
            {target === 'people' && <PeoplePicker value={people} onChange={setPeople} />}
            {templates.data && templates.data.data.length > 0 && (
              <Select label="Start from a template" placeholder="Choose a template (optional)" clearable searchable
                data={templates.data.data.map((tp) => ({ value: String(tp.id), label: tp.name }))} value={templateId}
                description="Fills in the subject and message; change them as you like"
                onChange={(v) => {
                  setTemplateId(v);
                  const tp = templates.data.data.find((x) => String(x.id) === v);
                  if (tp) { setSubject(tp.subject); setBody(tp.body); }
                }} />
            )}
            <TextInput ref={subjectRef} label="Subject" required value={subject} onChange={(e) => setSubject(e.currentTarget.value)} onFocus={() => setLastField('subject')} error={fieldError('subject')} maxLength={200} />
            <Textarea ref={bodyRef} label="Message" required autosize minRows={6} value={body} onChange={(e) => setBody(e.currentTarget.value)} onFocus={() => setLastField('body')} error={fieldError('body')} />
            <div>
              <Text size="sm" fw={500} id="merge-fields">Merge fields</Text>
              <Text size="xs" c="dimmed" mb={4}>Filled in for each recipient. Click one to put it where the cursor is in the {lastField === 'subject' ? 'subject' : 'message'}.</Text>
              <Group gap="xs" role="group" aria-labelledby="merge-fields">
                {MERGE_FIELDS.map((m) => (
                  <Button key={m.key} size="xs" variant="default" onMouseDown={(e) => e.preventDefault()} onClick={() => insert(m.key)} aria-label={`Insert ${m.label} {{${m.key}}}`}>
                    {m.label} <Text span ff="monospace" size="xs" ml={6}>{`{{${m.key}}}`}</Text>
                  </Button>
                ))}
              </Group>
            </div>
            {shownError && <ErrorAlert error={shownError} title={send.error ? 'The message was not sent' : 'The preview could not be made'} />}
            <Group>
              <Button type="submit" variant={previewed ? 'default' : 'filled'} loading={preview.isPending} disabled={!message}>Preview</Button>
              <Button onClick={onSend} loading={send.isPending} disabled={!previewed || previewed.recipientCount === 0}>
                {previewed ? `Send to ${f.number(previewed.recipientCount)} ${previewed.recipientCount === 1 ? 'person' : 'people'}` : 'Send'}
              </Button>
            </Group>
            {!message && <Text size="sm" c="dimmed">Choose who it is for and write a subject and a message, then preview it before sending.</Text>}
            {message && !previewed && <Text size="sm" c="dimmed">Preview the message to see who receives it before sending.</Text>}
          </Stack>
        </Card>
        {previewed && <PreviewPanel preview={previewed} />}
      </SimpleGrid>
    </Page>
  );
}

function PreviewPanel({ preview }: { preview: Preview }) {
  const f = useFormat();
  // On a phone the preview sits below the form: bring it into view when it arrives.
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (el && el.getBoundingClientRect().top > window.innerHeight) el.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }, [preview]);
  const skippedTotal = preview.skippedCount.noEmail + preview.skippedCount.optedOut;
  return (
    <Card ref={ref} withBorder component="section" aria-label="Preview">
      <Stack gap="sm">
        <Title order={2} size="h4">Preview</Title>
        <Text fw={600}>{f.number(preview.recipientCount)} {preview.recipientCount === 1 ? 'person receives' : 'people receive'} this email</Text>
        {preview.first ? (
          <Card withBorder bg="var(--mantine-color-body)" aria-label="The first recipient's email">
            <Text size="sm" c="dimmed">To: {preview.first.contact.firstName} {preview.first.contact.lastName} &lt;{preview.first.to}&gt;</Text>
            <Text fw={600} mt={4}>{preview.first.subject}</Text>
            <Text mt="xs" style={{ whiteSpace: 'pre-wrap' }}>{preview.first.body}</Text>
          </Card>
        ) : (
          <Alert color="yellow" title={<Text span fw={700} c="var(--mantine-color-text)">Nobody would receive it</Text>}>Everyone in this audience is skipped (below). Choose another audience.</Alert>
        )}
        {skippedTotal === 0 ? <Text size="sm" c="dimmed">Nobody is skipped.</Text> : (
          <>
            <Text fw={600}>{f.number(skippedTotal)} skipped: {f.number(preview.skippedCount.noEmail)} without an email address, {f.number(preview.skippedCount.optedOut)} opted out</Text>
            <Table.ScrollContainer minWidth={260} maxHeight={320}>
              <Table aria-label="Skipped" stickyHeader>
                <Table.Thead><Table.Tr><Table.Th>Name</Table.Th><Table.Th>Why</Table.Th></Table.Tr></Table.Thead>
                <Table.Tbody>
                  {preview.skipped.map((s) => (
                    <Table.Tr key={s.contact.id}><Table.Td>{s.contact.firstName} {s.contact.lastName}</Table.Td><Table.Td>{REASONS[s.reason]}</Table.Td></Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {skippedTotal > preview.skipped.length && <Text size="sm" c="dimmed">and {f.number(skippedTotal - preview.skipped.length)} more</Text>}
          </>
        )}
      </Stack>
    </Card>
  );
}

function ListPicker({ value, onChange }: { value: string | null; onChange: (v: string | null) => void }) {
  const lists = useListChoices();
  const data = (lists.data?.data ?? []).map((l) => ({ value: String(l.id), label: `${l.name} (${l.count})` }));
  return (
    <Select label="Saved list" placeholder={data.length || lists.isPending ? 'Choose a saved list' : 'No saved lists yet: save one from People'} searchable required
      data={data} value={value} onChange={onChange} error={lists.error ? errorMessage(lists.error) : undefined} />
  );
}

function PeoplePicker({ value, onChange }: { value: string[]; onChange: (v: string[]) => void }) {
  const [search, setSearch] = useState('');
  const [known, setKnown] = useState<Record<string, string>>({});
  const found = usePeopleChoices(search);
  const data = useMemo(() => {
    const items = new Map(value.map((id) => [id, known[id] ?? `#${id}`]));
    for (const c of found.data?.data ?? []) {
      const name = c.person ? `${c.person.firstName} ${c.person.lastName}` : (c.company?.name ?? `#${c.id}`);
      items.set(String(c.id), c.emails[0] ? `${name} · ${c.emails[0].value}` : name);
    }
    return [...items].map(([id, label]) => ({ value: id, label }));
  }, [found.data, value, known]);
  return (
    <MultiSelect label="People" placeholder={value.length ? undefined : 'Type a name, email or phone'} searchable required searchValue={search} onSearchChange={setSearch}
      filter={({ options }) => options} nothingFoundMessage={search.trim() ? 'Nobody by that name' : 'Type to search'} data={data} value={value}
      onChange={(ids) => {
        setKnown((k) => ({ ...k, ...Object.fromEntries(data.filter((d) => ids.includes(d.value)).map((d) => [d.value, d.label])) }));
        onChange(ids);
      }} error={found.error ? errorMessage(found.error) : undefined} />
  );
}
