import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { Page } from '../shared';

export function NotFound() {
  return (
    <Page title="Page not found">
      <Text>There is nothing at this address. <Anchor component={Link} to="/">Go to Home</Anchor>.</Text>
    </Page>
  );
}

export function NoAccess() {
  return (
    <Page title="Not available to you">
      <Text>Your role does not include this area. An administrator can change your roles.</Text>
    </Page>
  );
}
