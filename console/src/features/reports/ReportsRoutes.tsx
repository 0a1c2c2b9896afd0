import { Route, Routes } from 'react-router';
import { ReportPage } from './ReportPage';
import { ReportsHomePage } from './ReportsHomePage';
import { RollupPage } from './RollupPage';
import { SubmitReportPage } from './SubmitReportPage';

/** The Reports area (console.md "Screens"): the catalog, a report's form, chart, table and CSV; leaders' report forms and who has not reported. */
export function ReportsRoutes() {
  return (
    <Routes>
      <Route index element={<ReportsHomePage />} />
      <Route path="run/:key" element={<ReportPage />} />
      <Route path="forms/:id/submit" element={<SubmitReportPage />} />
      <Route path="forms/:id/rollup" element={<RollupPage />} />
    </Routes>
  );
}
