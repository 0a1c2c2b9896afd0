import { Route, Routes } from 'react-router';
import { BoardPage } from './BoardPage';
import { BoardsPage } from './BoardsPage';
import { MyTasksPage } from './MyTasksPage';
import { TaskPage } from './TaskPage';

/** Follow-up (console.md "Screens"): pipeline boards, my tasks, a task's page. */
export function FollowupRoutes() {
  return (
    <Routes>
      <Route index element={<BoardsPage />} />
      <Route path="boards/:id" element={<BoardPage />} />
      <Route path="my-tasks" element={<MyTasksPage />} />
      <Route path="tasks/:id" element={<TaskPage />} />
    </Routes>
  );
}
