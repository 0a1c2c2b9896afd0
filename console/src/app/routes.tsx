import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { createBrowserRouter, Navigate, useLocation } from 'react-router';
import { ForgotPasswordPage, SetPasswordPage, SignInPage } from '../features/auth';
import { Loading, useSession } from '../shared';
import { NoAccess, NotFound } from './NotFound';
import { Shell } from './Shell';

/** Each area is its own chunk, loaded when first opened (console.md "Quality bars"). */
const Home = lazy(() => import('../features/home').then((m) => ({ default: m.HomePage })));
const People = lazy(() => import('../features/people').then((m) => ({ default: m.PeopleRoutes })));
const Groups = lazy(() => import('../features/groups').then((m) => ({ default: m.GroupsRoutes })));

/** The areas of the left navigation, each shown only to users who may open it. */
export const AREAS = [
  { path: '/', label: 'Home', permission: undefined },
  { path: '/people', label: 'People', permission: 'contacts:read' },
  { path: '/groups', label: 'Groups', permission: 'groups:read' },
] as const;

function SignedIn() {
  const { session } = useSession();
  const location = useLocation();
  if (session === undefined) return <Loading label="Restoring your session" />;
  if (session === null) return <Navigate to="/sign-in" replace state={{ from: location.pathname + location.search }} />;
  return <Shell />;
}

function SignedOut({ children }: { children: React.ReactNode }) {
  const { session } = useSession();
  if (session === undefined) return <Loading label="Restoring your session" />;
  return session ? <Navigate to="/" replace /> : <>{children}</>;
}

function area(Screen: LazyExoticComponent<ComponentType>, permission?: string) {
  function Area() {
    const { can } = useSession();
    if (permission && !can(permission)) return <NoAccess />;
    return (
      <Suspense fallback={<Loading />}>
        <Screen />
      </Suspense>
    );
  }
  return <Area />;
}

export const router = createBrowserRouter([
  { path: '/sign-in', element: <SignedOut><SignInPage /></SignedOut> },
  { path: '/forgot-password', element: <SignedOut><ForgotPasswordPage /></SignedOut> },
  { path: '/reset-password/:token', element: <SetPasswordPage /> },
  {
    element: <SignedIn />,
    children: [
      { index: true, element: area(Home) },
      { path: 'people/*', element: area(People, 'contacts:read') },
      { path: 'groups/*', element: area(Groups, 'groups:read') },
      { path: '*', element: <NotFound /> },
    ],
  },
]);

