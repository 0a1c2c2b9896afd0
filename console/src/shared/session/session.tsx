import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, onSession, refreshSession, setAccessToken, type TokenAnswer } from '../api/client';
import { unwrap } from '../api/errors';

export interface Tenant {
  slug: string;
  name: string;
  timeZone: string;
  currency: string;
  allowRegistration: boolean;
}
export type User = TokenAnswer['user'];

export interface Session {
  user: User;
  tenant: Tenant;
}

interface SessionState {
  /** undefined while the refresh cookie is being tried on load. */
  session: Session | null | undefined;
  signIn(input: { churchName: string; username: string; password: string }): Promise<void>;
  signOut(): Promise<void>;
  can(permission: string): boolean;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

/** The church slug this device signs in to (console.md: "the church remembered on this device"). */
export const CHURCH_KEY = 'parish.church';

async function loadTenant(): Promise<Tenant> {
  return unwrap(api.GET('/api/tenants/current'));
}

/**
 * Who is signed in. On load the refresh cookie is exchanged for an access token (a reload keeps the
 * session); the access token is renewed a minute before it expires.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [expiresIn, setExpiresIn] = useState<number>();

  const start = useCallback(async (tokens: TokenAnswer) => {
    setAccessToken(tokens.accessToken);
    setExpiresIn(tokens.expiresIn);
    const tenant = await loadTenant();
    setSession({ user: tokens.user, tenant });
  }, []);

  useEffect(() => {
    onSession({
      refreshed: (tokens) => {
        setExpiresIn(tokens.expiresIn);
        setSession((current) => (current ? { ...current, user: tokens.user } : current));
      },
      lost: () => {
        setAccessToken(undefined);
        setSession(null);
      },
    });
    void refreshSession().then(async (tokens) => {
      if (!tokens) return setSession(null);
      await start(tokens).catch(() => setSession(null));
    });
  }, [start]);

  useEffect(() => {
    if (!session || !expiresIn) return undefined;
    const timer = setTimeout(() => void refreshSession(), Math.max(expiresIn - 60, 10) * 1000);
    return () => clearTimeout(timer);
  }, [session, expiresIn]);

  const value = useMemo<SessionState>(() => ({
    session,
    signIn: async (input) => {
      const tokens = await unwrap(api.POST('/api/auth/login', { body: { ...input, refreshCookie: true } }));
      localStorage.setItem(CHURCH_KEY, input.churchName);
      await start(tokens);
    },
    signOut: async () => {
      await api.POST('/api/auth/logout', { body: {} }).catch(() => undefined);
      setAccessToken(undefined);
      setSession(null);
    },
    can: (permission) => !!session?.user.permissions.includes(permission),
  }), [session, start]);

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}

/** The signed-in session (for screens behind sign-in). */
export function useSignedIn(): Session & { can(permission: string): boolean } {
  const { session, can } = useSession();
  if (!session) throw new Error('useSignedIn without a session');
  return { ...session, can };
}
