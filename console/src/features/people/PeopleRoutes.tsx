import { Route, Routes } from 'react-router';
import { PeopleListPage } from './PeopleListPage';
import { PersonEditPage } from './PersonEditPage';
import { PersonPage } from './PersonPage';

export function PeopleRoutes() {
  return (
    <Routes>
      <Route index element={<PeopleListPage />} />
      <Route path="new" element={<PersonEditPage />} />
      <Route path=":id" element={<PersonPage />} />
      <Route path=":id/edit" element={<PersonEditPage />} />
    </Routes>
  );
}
