import { Route, Routes } from 'react-router';
import { AuditPage } from './AuditPage';
import { ImportPage } from './ImportPage';
import { RolesPage } from './RolesPage';
import { AdminIndexPage, SECTIONS, SectionGate, type SectionPath } from './sections';
import { SettingsPage } from './SettingsPage';
import { UsersPage } from './UsersPage';
import { WebhookPage, WebhooksPage } from './WebhooksPage';

const permissionOf = (path: SectionPath) => SECTIONS.find((s) => s.path === path)!.permission;

/** The Admin area (console.md "Screens"): each section shown only to who holds its permission. */
export function AdminRoutes() {
  const gate = (path: SectionPath, element: React.ReactNode) => <SectionGate permission={permissionOf(path)}>{element}</SectionGate>;
  return (
    <Routes>
      <Route index element={<AdminIndexPage />} />
      <Route path="users" element={gate('users', <UsersPage />)} />
      <Route path="roles" element={gate('roles', <RolesPage />)} />
      <Route path="settings" element={gate('settings', <SettingsPage />)} />
      <Route path="webhooks" element={gate('webhooks', <WebhooksPage />)} />
      <Route path="webhooks/:id" element={gate('webhooks', <WebhookPage />)} />
      <Route path="audit" element={gate('audit', <AuditPage />)} />
      <Route path="import" element={gate('import', <ImportPage />)} />
    </Routes>
  );
}
