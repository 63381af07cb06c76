/** What the user list is filtered by: a keyword and/or a group. */
export interface UserFilters {
  keyword: string;
  group: string;
}

/** Query keys of the users feature; every user mutation invalidates `all`. */
export const userKeys = {
  all: ['users'] as const,
  list: (filters: UserFilters) => [...userKeys.all, 'list', filters] as const,
  lists: () => [...userKeys.all, 'list'] as const,
  one: (id: number) => [...userKeys.all, 'one', id] as const,
};
