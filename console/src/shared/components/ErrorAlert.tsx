import { Alert } from '@mantine/core';
import { errorMessage } from '../api/errors';

/** A failed request's message, where the user can act on it. */
export function ErrorAlert({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (!error) return null;
  return (
    <Alert color="red" title={title} role="alert">
      {errorMessage(error)}
    </Alert>
  );
}
