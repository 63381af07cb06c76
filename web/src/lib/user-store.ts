import { useSyncExternalStore } from 'react';
import { Role, type SessionUser } from '@modelgate/shared';
import { readJson, removeKey, StorageKey, writeJson } from './storage-keys';

/** The signed-in user as stored locally after login: what a sign-in answers (the shared SessionUser). */
export type StoredUser = SessionUser;

const listeners = new Set<() => void>();
let cached: StoredUser | null | undefined;

function read(): StoredUser | null {
  if (cached === undefined) {
    const user = readJson<StoredUser>(StorageKey.user);
    cached = user && typeof user.id === 'number' ? user : null;
  }
  return cached;
}

function emit() {
  cached = undefined;
  for (const listener of listeners) listener();
}

export const userStore = {
  get: read,
  set(user: StoredUser) {
    writeJson(StorageKey.user, user);
    emit();
  },
  clear() {
    removeKey(StorageKey.user);
    emit();
  },
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key === StorageKey.user || event.key === null) emit();
  });
}

export function useCurrentUser(): StoredUser | null {
  return useSyncExternalStore(userStore.subscribe, userStore.get, userStore.get);
}

export const isAdmin = (user: StoredUser | null): boolean => !!user && user.role >= Role.admin;
export const isRoot = (user: StoredUser | null): boolean => !!user && user.role >= Role.root;
