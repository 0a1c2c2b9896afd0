import { Tabs } from '@mantine/core';
import { Route, Routes, useLocation, useNavigate } from 'react-router';
import { useSession } from '../../shared';
import { ComposePage } from './ComposePage';
import { InboxPage } from './InboxPage';
import { PreferencesPage } from './PreferencesPage';
import { SentPage } from './SentPage';

/** The Messages area (console.md "Screens"): the inbox and preferences for everyone; compose and sent messages with notifications:send. */
export function MessagesRoutes() {
  const { can } = useSession();
  const sender = can('notifications:send');
  return (
    <>
      <AreaTabs sender={sender} />
      <Routes>
        <Route index element={<InboxPage />} />
        <Route path="preferences" element={<PreferencesPage />} />
        {sender && <Route path="compose" element={<ComposePage />} />}
        {sender && <Route path="sent" element={<SentPage />} />}
        <Route path="*" element={<InboxPage />} />
      </Routes>
    </>
  );
}

function AreaTabs({ sender }: { sender: boolean }) {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const current = /\/messages\/(preferences|compose|sent)/.exec(pathname)?.[1] ?? 'inbox';
  return (
    <Tabs value={current} onChange={(v) => navigate(v === 'inbox' ? '/messages' : `/messages/${v}`)} mb="md" aria-label="Messages">
      <Tabs.List>
        <Tabs.Tab value="inbox">Inbox</Tabs.Tab>
        {sender && <Tabs.Tab value="compose">Compose</Tabs.Tab>}
        {sender && <Tabs.Tab value="sent">Sent messages</Tabs.Tab>}
        <Tabs.Tab value="preferences">Preferences</Tabs.Tab>
      </Tabs.List>
    </Tabs>
  );
}
