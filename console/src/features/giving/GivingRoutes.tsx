import { Route, Routes } from 'react-router';
import { BatchesListPage } from './BatchesListPage';
import { BatchPage } from './BatchPage';
import { ContributionsPage } from './ContributionsPage';
import { PledgesPage } from './PledgesPage';
import { StatementsPage } from './StatementsPage';

/** The Giving area (console.md "Giving"): batches and keyboard entry, contributions, statements, pledges. */
export function GivingRoutes() {
  return (
    <Routes>
      <Route index element={<BatchesListPage />} />
      <Route path="batches/:id" element={<BatchPage />} />
      <Route path="contributions" element={<ContributionsPage />} />
      <Route path="statements" element={<StatementsPage />} />
      <Route path="pledges" element={<PledgesPage />} />
    </Routes>
  );
}
