import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { createBrowserRouter, Navigate, useLocation } from 'react-router';
import { ForgotPasswordPage, SetPasswordPage, SignInPage } from '../features/auth';
import { Loading, useSession } from '../shared';
import { NoAccess, NotFound } from './NotFound';
import { Shell } from './Shell';

/** Each area is its own chunk, loaded when first opened (console.md "Quality bars"). */
const Home = lazy(() => import('../features/home').then((m) => ({ default: m.HomePage })));
const People = lazy(() => import('../features/people').then((m) => ({ default: m.PeopleRoutes })));
const Households = lazy(() => import('../features/households').then((m) => ({ default: m.HouseholdsRoutes })));
const Groups = lazy(() => import('../features/groups').then((m) => ({ default: m.GroupsRoutes })));
const Attendance = lazy(() => import('../features/attendance').then((m) => ({ default: m.AttendanceRoutes })));
const Followup = lazy(() => import('../features/followup').then((m) => ({ default: m.FollowupRoutes })));
const Giving = lazy(() => import('../features/giving').then((m) => ({ default: m.GivingRoutes })));
const Reports = lazy(() => import('../features/reports').then((m) => ({ default: m.ReportsRoutes })));
const Messages = lazy(() => import('../features/messages').then((m) => ({ default: m.MessagesRoutes })));
const Admin = lazy(() => import('../features/admin').then((m) => ({ default: m.AdminRoutes })));
const Kiosk = lazy(() => import('../features/kiosk').then((m) => ({ default: m.KioskPage })));

/** Admin opens to anyone holding one of the permissions its screens need. */
const ADMIN_PERMISSIONS = ['users:read', 'roles:read', 'webhooks:write', 'audit:read'] as const;

/** The areas of the left navigation, each shown only to users who may open it. */
export const AREAS = [
  { path: '/', label: 'Home', permission: undefined },
  { path: '/people', label: 'People', permission: 'contacts:read' },
  { path: '/households', label: 'Households', permission: 'contacts:read' },
  { path: '/groups', label: 'Groups', permission: 'groups:read' },
  { path: '/attendance', label: 'Attendance', permission: 'attendance:read' },
  { path: '/kiosk', label: 'Check-in kiosk', permission: 'checkin:write' },
  { path: '/follow-up', label: 'Follow-up', permission: 'tasks:read' },
  { path: '/giving', label: 'Giving', permission: 'finance:read' },
  { path: '/reports', label: 'Reports', permission: 'reports:read' },
  { path: '/messages', label: 'Messages', permission: undefined },
  { path: '/admin', label: 'Admin', permission: ADMIN_PERMISSIONS },
] as const;

/** A kiosk account (checkin:write, and neither contacts:read nor attendance:read) sees the kiosk and nothing else. */
const kioskOnly = (can: (p: string) => boolean) => can('checkin:write') && !can('contacts:read') && !can('attendance:read');


function SignedIn({ kiosk = false }: { kiosk?: boolean }) {
  const { session, can } = useSession();
  const location = useLocation();
  if (session === undefined) return <Loading label="Restoring your session" />;
  if (session === null) return <Navigate to="/sign-in" replace state={{ from: location.pathname + location.search }} />;
  if (kiosk) return kioskArea;
  return kioskOnly(can) ? <Navigate to="/kiosk" replace /> : <Shell />;
}

function SignedOut({ children }: { children: React.ReactNode }) {
  const { session } = useSession();
  if (session === undefined) return <Loading label="Restoring your session" />;
  return session ? <Navigate to="/" replace /> : <>{children}</>;
}

/** Whether a user holding `can` may open an area gated by `permission` (one, or any of several). */
export const mayOpen = (can: (p: string) => boolean, permission: string | readonly string[] | undefined) =>
  permission === undefined || (typeof permission === 'string' ? can(permission) : permission.some(can));

function area(Screen: LazyExoticComponent<ComponentType>, permission?: string | readonly string[]) {
  function Area() {
    const { can } = useSession();
    if (!mayOpen(can, permission)) return <NoAccess />;
    return (
      <Suspense fallback={<Loading />}>
        <Screen />
      </Suspense>
    );
  }
  return <Area />;
}

/** Full screen, outside the Shell: the kiosk (console.md "Check-in kiosk"). */
const kioskArea = area(Kiosk, 'checkin:write');

export const router = createBrowserRouter([
  { path: '/kiosk', element: <SignedIn kiosk /> },
  { path: '/sign-in', element: <SignedOut><SignInPage /></SignedOut> },
  { path: '/forgot-password', element: <SignedOut><ForgotPasswordPage /></SignedOut> },
  { path: '/reset-password/:token', element: <SetPasswordPage /> },
  {
    element: <SignedIn />,
    children: [
      { index: true, element: area(Home) },
      { path: 'people/*', element: area(People, 'contacts:read') },
      { path: 'households/*', element: area(Households, 'contacts:read') },
      { path: 'groups/*', element: area(Groups, 'groups:read') },
      { path: 'attendance/*', element: area(Attendance, 'attendance:read') },
      { path: 'follow-up/*', element: area(Followup, 'tasks:read') },
      { path: 'giving/*', element: area(Giving, 'finance:read') },
      { path: 'reports/*', element: area(Reports, 'reports:read') },
      { path: 'messages/*', element: area(Messages) },
      { path: 'admin/*', element: area(Admin, ADMIN_PERMISSIONS) },
      { path: '*', element: <NotFound /> },
    ],
  },
]);

