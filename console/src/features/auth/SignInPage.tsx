import { Anchor, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { CHURCH_KEY, ErrorAlert, useSession } from '../../shared';

/** Sign in: church (remembered on this device), username or email, password. */
export function SignInPage() {
  const { signIn } = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [churchName, setChurch] = useState(() => localStorage.getItem(CHURCH_KEY) ?? '');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const next = (location.state as { from?: string } | null)?.from ?? '/';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn({ churchName: churchName.trim(), username: username.trim(), password });
      navigate(next, { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame title="Sign in to Parish">
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Church" description="Your church's short name, as in your invitation" required value={churchName}
            onChange={(e) => setChurch(e.currentTarget.value)} autoComplete="organization" autoFocus={!churchName} />
          <TextInput label="Username or email" required value={username} onChange={(e) => setUsername(e.currentTarget.value)}
            autoComplete="username" autoFocus={!!churchName} />
          <PasswordInput label="Password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} autoComplete="current-password" />
          <ErrorAlert error={error} title="Could not sign in" />
          <Button type="submit" loading={busy}>Sign in</Button>
        </Stack>
      </form>
      <Anchor component={Link} to="/forgot-password" size="sm">Forgot your password?</Anchor>
    </AuthFrame>
  );
}

/** The centred card of the pages before sign-in. */
export function AuthFrame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="lg" radius="md" w="100%" maw={420}>
        <Stack>
          <Title order={1} size="h2">{title}</Title>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}
