import type { ReactNode } from 'react';
import { useSession } from '../session/session';

/** Shows its children only to a user holding the permission (the API decides; this hides what would be refused). */
export function Can({ permission, children }: { permission: string; children: ReactNode }) {
  return useSession().can(permission) ? <>{children}</> : null;
}
