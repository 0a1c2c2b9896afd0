import { Button, Group, Modal, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import { ErrorAlert } from './ErrorAlert';

/**
 * Asks before an action that cannot be taken back, saying in plain words what will happen; the
 * API's refusal shows inside the dialog, where the user can act on it.
 */
export function ConfirmDialog({ opened, onClose, title, children, confirmLabel, color = 'red', onConfirm, loading, error, disabled }: {
  opened: boolean;
  onClose(): void;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  color?: string;
  onConfirm(): void;
  loading?: boolean;
  error?: unknown;
  disabled?: boolean;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered size="lg">
      <Stack>
        {children}
        <ErrorAlert error={error} title="Not done" />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>Cancel</Button>
          <Button color={color} onClick={onConfirm} loading={loading} disabled={disabled}>{confirmLabel}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
