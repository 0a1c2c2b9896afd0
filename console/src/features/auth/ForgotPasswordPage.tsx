import { Anchor, Button, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, CHURCH_KEY, ErrorAlert, unwrap } from '../../shared';
import { AuthFrame } from './SignInPage';

/** Asks for a reset email (the same answer whether the account exists or not). */
export function ForgotPasswordPage() {
  const [churchName, setChurch] = useState(() => localStorage.getItem(CHURCH_KEY) ?? '');
  const [login, setLogin] = useState('');
  const [sent, setSent] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const value = login.trim();
      const body = { churchName: churchName.trim(), ...(value.includes('@') ? { email: value } : { username: value }) };
      setSent((await unwrap(api.POST('/api/auth/forgot-password', { body }))).message);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame title="Forgot your password?">
      {sent ? <Text role="status">{sent}. The link in it works for one hour.</Text> : (
        <form onSubmit={submit}>
          <Stack>
            <TextInput label="Church" required value={churchName} onChange={(e) => setChurch(e.currentTarget.value)} autoComplete="organization" />
            <TextInput label="Username or email" required value={login} onChange={(e) => setLogin(e.currentTarget.value)} autoComplete="username" autoFocus />
            <ErrorAlert error={error} title="Could not send the email" />
            <Button type="submit" loading={busy}>Email me a link</Button>
          </Stack>
        </form>
      )}
      <Anchor component={Link} to="/sign-in" size="sm">Back to sign in</Anchor>
    </AuthFrame>
  );
}
