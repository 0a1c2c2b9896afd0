import { Alert, Button, Group, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { ApiError, ErrorAlert } from '../../shared';
import { useSessionActions } from './api';
import { READABLE_ALERT } from './ui';

const EMPTY = { firstName: '', lastName: '', email: '', phone: '' };
type Field = keyof typeof EMPTY;

/**
 * A visitor: name, email and phone. The API finds a returning guest by email or phone digits instead
 * of adding them twice; the answer says which happened.
 */
export function GuestForm({ sessionId }: { sessionId: number }) {
  const { guest } = useSessionActions(sessionId);
  const [fields, setFields] = useState(EMPTY);
  const [said, setSaid] = useState<{ returning: boolean; text: string }>();
  const fieldError = guest.error instanceof ApiError && guest.error.field ? guest.error : undefined;
  const input = (key: Field, label: string, extra: Record<string, unknown> = {}) => (
    <TextInput label={label} value={fields[key]} {...extra}
      error={fieldError?.field === key ? fieldError.fieldMessage : undefined}
      onChange={(e) => setFields({ ...fields, [key]: e.currentTarget.value })} />
  );

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaid(undefined);
    const email = fields.email.trim(), phone = fields.phone.trim();
    try {
      const { contact } = await guest.mutateAsync({ firstName: fields.firstName.trim(), lastName: fields.lastName.trim(), email: email || null, phone: phone || null });
      const name = `${contact.firstName} ${contact.lastName}`;
      setSaid(contact.isNew
        ? { returning: false, text: `New guest added: ${name}` }
        : { returning: true, text: `Welcome back, ${name} — matched by ${contact.matchedBy === 'email' ? 'email' : 'phone'}` });
      setFields(EMPTY);
    } catch {
      // Shown below the form; what was typed stays.
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
          {input('firstName', 'First name', { required: true, autoComplete: 'off' })}
          {input('lastName', 'Last name', { required: true, autoComplete: 'off' })}
          {input('email', 'Email', { type: 'email', autoComplete: 'off' })}
          {input('phone', 'Phone', { type: 'tel', autoComplete: 'off' })}
        </SimpleGrid>
        {!fieldError && <ErrorAlert error={guest.error} title="Guest not added" />}
        {said && (
          <Alert color={said.returning ? 'blue' : 'green'} title={said.returning ? 'Returning guest' : 'Guest added'} role="status"
            styles={READABLE_ALERT}>
            {said.text}
          </Alert>
        )}
        <Group><Button type="submit" mih={44} loading={guest.isPending}>Add guest</Button></Group>
      </Stack>
    </form>
  );
}
