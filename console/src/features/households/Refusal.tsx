import { Anchor, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { ApiError, ErrorAlert } from '../../shared';

/**
 * The API's refusal, and when it names the household a person already belongs to ("Contact 7
 * already belongs to household 3"), a link there: the place to remove them first.
 */
export function Refusal({ error, title }: { error: unknown; title: string }) {
  if (!error) return null;
  const other = error instanceof ApiError ? /already belongs to household (\d+)/.exec(error.message)?.[1] : undefined;
  return (
    <Stack gap={4}>
      <ErrorAlert error={error} title={title} />
      {other && (
        <Text size="sm">
          A person belongs to one household at a time. <Anchor component={Link} to={`/households/${other}`}>Open their household</Anchor> to
          remove them there first.
        </Text>
      )}
    </Stack>
  );
}
