import { Text } from '@mantine/core';
import { Page } from '../../shared';

/** A write screen opened by someone whose role cannot write here. */
export function NoAccess() {
  return (
    <Page title="Not available to you">
      <Text>Your role can look at households but not change them. An administrator can change your roles.</Text>
    </Page>
  );
}
