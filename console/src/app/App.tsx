import { createTheme, MantineProvider, type CSSVariablesResolver } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { ApiError, SessionProvider } from '../shared';
import { router } from './routes';

const theme = createTheme({
  primaryColor: 'indigo',
  // The darker shades keep text and links at WCAG AA contrast on white (axe, console.md "Quality bars").
  primaryShade: { light: 8, dark: 7 },
  // Visible focus for keyboard use (console.md "Quality bars").
  focusRing: 'auto',
  defaultRadius: 'md',
  // Close buttons show only an ×: they need a name for screen readers (axe "button-name").
  components: {
    // Plain objects, not Modal.extend: importing Modal here would put it in the first screen's JavaScript.
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' }, styles: { title: { fontWeight: 700, fontSize: 'var(--mantine-font-size-lg)' } } } },
    Notification: { defaultProps: { closeButtonProps: { 'aria-label': 'Close the message' } } },
  },
});

/** Dimmed text (descriptions, hints) and field errors dark enough for AA contrast in the light scheme. */
const contrast: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)', '--mantine-color-error': 'var(--mantine-color-red-8)' },
  dark: { '--mantine-color-dimmed': 'var(--mantine-color-dark-1)' },
});

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // A refusal (4xx) will not change by asking again; a dropped connection might.
      retry: (count, error) => !(error instanceof ApiError && error.statusCode < 500) && count < 2,
    },
  },
});

/** Providers, then the routes; light or dark follows the device. */
export function App() {
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto" cssVariablesResolver={contrast}>
      <Notifications position="top-right" />
      <QueryClientProvider client={queryClient}>
        <SessionProvider>
          <RouterProvider router={router} />
        </SessionProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
