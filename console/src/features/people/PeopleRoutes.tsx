import { Route, Routes } from 'react-router';
import { DuplicatesPage } from './DuplicatesPage';
import { PeopleListPage } from './PeopleListPage';
import { PersonEditPage } from './PersonEditPage';
import { PersonPage } from './PersonPage';

export function PeopleRoutes() {
  return (
    <Routes>
      <Route index element={<PeopleListPage />} />
      <Route path="duplicates" element={<DuplicatesPage />} />
      <Route path="new" element={<PersonEditPage />} />
      <Route path=":id" element={<PersonPage />} />
      <Route path=":id/edit" element={<PersonEditPage />} />
    </Routes>
  );
}
