import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { readString, StorageKey, writeString } from '../lib/storage-keys';

export type ThemeMode = 'light' | 'dark';

interface ThemeState {
  mode: ThemeMode;
  setMode: (mode: ThemeMode) => void;
}

const ThemeContext = createContext<ThemeState>({ mode: 'light', setMode: () => {} });

const initialMode = (): ThemeMode => (readString(StorageKey.themeMode) === 'dark' ? 'dark' : 'light');

/** Dark or light, kept in local storage 'theme-mode'. */
export function ThemeModeProvider({ children }: { children: ReactNode }) {
  const [mode, setModeState] = useState<ThemeMode>(initialMode);
  const setMode = useCallback((next: ThemeMode) => {
    writeString(StorageKey.themeMode, next);
    document.documentElement.dataset.theme = next;
    setModeState(next);
  }, []);
  const value = useMemo(() => ({ mode, setMode }), [mode, setMode]);
  return <ThemeContext.Provider value={value}>{children}</ThemeContext.Provider>;
}

export const useThemeMode = () => useContext(ThemeContext);
