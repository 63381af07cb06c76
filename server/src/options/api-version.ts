/**
 * An API version as a URL path segment (Gemini's v1, v1beta, v1alpha): letters, digits, dots, dashes
 * and underscores. It goes into every call's URL unencoded, so anything else (a slash, a query, a
 * line break) is refused on save and read as the default when stored.
 */
export const isApiVersion = (value: string): boolean => /^[A-Za-z0-9._-]{1,32}$/.test(value) && value !== '.' && value !== '..';
