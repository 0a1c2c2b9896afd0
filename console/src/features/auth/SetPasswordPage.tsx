import { Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { api, ApiError, CHURCH_KEY, ErrorAlert, unwrap, useSession } from '../../shared';
import { AuthFrame } from './SignInPage';

/**
 * The page invitation and password-reset emails link to (/reset-password/<token>?church=<slug>):
 * choose a password, then be signed in with it.
 */
export function SetPasswordPage() {
  const { token = '' } = useParams();
  const [search] = useSearchParams();
  const { signIn } = useSession();
  const navigate = useNavigate();
  const [churchName, setChurch] = useState(() => search.get('church') ?? localStorage.getItem(CHURCH_KEY) ?? '');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const mismatch = repeat !== '' && repeat !== password ? 'The two passwords differ' : undefined;
  const passwordError = error instanceof ApiError && error.field === 'password' ? error.fieldMessage : undefined;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (mismatch) return;
    setBusy(true);
    setError(undefined);
    try {
      await unwrap(api.PUT('/api/auth/reset-password/{token}', { params: { path: { token } }, body: { password } }));
      await signIn({ churchName: churchName.trim(), username: username.trim(), password });
      navigate('/', { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame title="Choose your password">
      <Text size="sm">Your email gave your church and username. The new password needs at least 8 characters.</Text>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput label="Church" required value={churchName} onChange={(e) => setChurch(e.currentTarget.value)} autoComplete="organization" />
          <TextInput label="Username" required value={username} onChange={(e) => setUsername(e.currentTarget.value)} autoComplete="username" autoFocus />
          <PasswordInput label="New password" required value={password} error={passwordError}
            onChange={(e) => setPassword(e.currentTarget.value)} autoComplete="new-password" />
          <PasswordInput label="Repeat the new password" required value={repeat} error={mismatch}
            onChange={(e) => setRepeat(e.currentTarget.value)} autoComplete="new-password" />
          {!passwordError && <ErrorAlert error={error} title="Could not set the password" />}
          <Button type="submit" loading={busy}>Set password and sign in</Button>
        </Stack>
      </form>
    </AuthFrame>
  );
}
