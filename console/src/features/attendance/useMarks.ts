import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { attendanceKeys, saveMarks } from './api';

/** How long the roster waits after the last tap before it writes (taps in a row go in one request). */
const QUIET_MS = 700;

/**
 * The roster's taps: shown at once, written together after a short pause (everyone newly present in
 * one POST, one DELETE per person unmarked), and written on leaving the page. A failed write keeps
 * the taps and says so; "Try again" writes them again.
 */
export function useMarks(sessionId: number, recorded: ReadonlySet<number>) {
  const client = useQueryClient();
  const [pending, setPending] = useState<ReadonlyMap<number, boolean>>(new Map());
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>();
  const latest = useRef(pending);
  latest.current = pending;
  const busy = useRef(false);

  const isPresent = (id: number) => pending.get(id) ?? recorded.has(id);

  const flush = useCallback(async () => {
    const snapshot = latest.current;
    if (busy.current || snapshot.size === 0) return;
    busy.current = true;
    setSaving(true);
    const add = [...snapshot].filter(([, v]) => v).map(([id]) => id);
    const remove = [...snapshot].filter(([, v]) => !v).map(([id]) => id);
    try {
      await saveMarks(sessionId, add, remove);
      await client.invalidateQueries({ queryKey: attendanceKeys.session(sessionId) });
      setError(undefined);
      // Taps made while writing stay pending; the written ones are now the session's records.
      setPending((now) => new Map([...now].filter(([id, v]) => snapshot.get(id) !== v)));
    } catch (e) {
      setError(e);
    } finally {
      busy.current = false;
      setSaving(false);
    }
  }, [client, sessionId]);

  // Write after a quiet moment; again when taps arrived during a write.
  useEffect(() => {
    if (pending.size === 0 || saving || error) return undefined;
    const timer = setTimeout(() => void flush(), QUIET_MS);
    return () => clearTimeout(timer);
  }, [pending, saving, error, flush]);

  // Leaving the page writes what is left.
  useEffect(() => () => {
    const left = latest.current;
    if (left.size === 0) return;
    const add = [...left].filter(([, v]) => v).map(([id]) => id);
    const remove = [...left].filter(([, v]) => !v).map(([id]) => id);
    void saveMarks(sessionId, add, remove).finally(() => client.invalidateQueries({ queryKey: ['attendance'] }));
  }, [client, sessionId]);

  const toggle = (id: number) => {
    setPending((now) => {
      const next = new Map(now);
      const present = !(now.get(id) ?? recorded.has(id));
      if (present === recorded.has(id)) next.delete(id);
      else next.set(id, present);
      return next;
    });
  };

  /** Present now, counting taps not yet written. */
  const count = (() => {
    let n = recorded.size;
    for (const [id, v] of pending) n += v === recorded.has(id) ? 0 : v ? 1 : -1;
    return n;
  })();

  return { isPresent, toggle, count, unsaved: pending.size, saving, error, retry: () => { setError(undefined); void flush(); } };
}
