// A value that components can follow (useSignal) and code can set: the only state
// container the client needs, small enough not to warrant a library.
import { useEffect, useState } from 'preact/hooks';

export function signal(initial) {
  const listeners = new Set();
  let value = initial;
  return {
    get value() { return value; },
    set value(next) {
      value = next;
      for (const listener of [...listeners]) listener(next);
    },
    subscribe(listener) { listeners.add(listener); return () => listeners.delete(listener); },
  };
}

/** Re-renders the component whenever the signal is set. */
export function useSignal(sig) {
  const [, setTick] = useState(0);
  useEffect(() => sig.subscribe(() => setTick((n) => n + 1)), [sig]);
  return sig.value;
}
