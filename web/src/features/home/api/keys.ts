/** Query keys of the public presentation options. */
export const contentKeys = {
  all: ['content'] as const,
  home: ['content', 'home'] as const,
  about: ['content', 'about'] as const,
  notice: ['content', 'notice'] as const,
};
