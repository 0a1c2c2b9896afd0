import { Route, Routes } from 'react-router';
import { HouseholdNewPage } from './HouseholdNewPage';
import { HouseholdPage } from './HouseholdPage';
import { HouseholdsListPage } from './HouseholdsListPage';

export function HouseholdsRoutes() {
  return (
    <Routes>
      <Route index element={<HouseholdsListPage />} />
      <Route path="new" element={<HouseholdNewPage />} />
      <Route path=":id" element={<HouseholdPage />} />
    </Routes>
  );
}
