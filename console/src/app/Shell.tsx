import { lazy, Suspense } from 'react';
import { Loading } from '../shared';

/**
 * The frame of the signed-in screens (ShellFrame: navigation, header search, user menu) is a chunk of
 * its own, so the sign-in screen does not load it (console.md "Quality bars": the first screen
 * interactive in under 1 s). It is fetched once the first screen is up, so Home does not wait on it.
 */
const loadFrame = () => import('./ShellFrame');
const Frame = lazy(() => loadFrame().then((m) => ({ default: m.ShellFrame })));
if (typeof window !== 'undefined') setTimeout(() => void loadFrame(), 1000);

export function Shell() {
  return (
    <Suspense fallback={<Loading label="Opening Parish" />}>
      <Frame />
    </Suspense>
  );
}
