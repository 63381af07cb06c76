/** What the token list is filtered by: a name keyword and/or a key. */
export interface TokenFilters {
  keyword: string;
  token: string;
}

/** Query keys of the tokens feature; every token mutation invalidates `all`. */
export const tokenKeys = {
  all: ['tokens'] as const,
  list: (filters: TokenFilters) => [...tokenKeys.all, 'list', filters] as const,
  one: (id: number | null) => [...tokenKeys.all, 'one', id] as const,
};
