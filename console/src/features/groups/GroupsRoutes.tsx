import { Route, Routes } from 'react-router';
import { GroupPage } from './GroupPage';
import { GroupsTreePage } from './GroupsTreePage';

export function GroupsRoutes() {
  return (
    <Routes>
      <Route index element={<GroupsTreePage />} />
      <Route path=":id" element={<GroupPage />} />
    </Routes>
  );
}
