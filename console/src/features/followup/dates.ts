/** Calendar days (YYYY-MM-DD) in the church's time zone: "today" and the end of this week (weeks start on Sunday). */
export function calendar(timeZone: string, now = new Date()) {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  const day = new Date(`${today}T00:00:00Z`);
  const saturday = new Date(day.getTime() + (6 - day.getUTCDay()) * 86_400_000).toISOString().slice(0, 10);
  return { today, weekEnd: saturday };
}

export type Due = 'overdue' | 'today' | 'week' | 'later';

/** Where an open task falls: overdue (the API's word), due today, later this week, or later (no date included). */
export function dueGroup(task: { overdue: boolean; dueDate: string | null }, days: { today: string; weekEnd: string }): Due {
  if (task.overdue) return 'overdue';
  if (!task.dueDate) return 'later';
  if (task.dueDate <= days.today) return 'today';
  return task.dueDate <= days.weekEnd ? 'week' : 'later';
}
