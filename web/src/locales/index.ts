/**
 * Translation resources, one JSON file per feature area under zh/ and en/ (zh is the fallback and
 * holds the spec's messages verbatim). Each file owns its top-level keys; files are merged here.
 */
type Tree = { [key: string]: string | Tree };

function merge(files: Record<string, Tree>): Tree {
  const merged: Tree = {};
  for (const [file, tree] of Object.entries(files)) {
    for (const [key, value] of Object.entries(tree)) {
      if (key in merged) throw new Error(`locale key "${key}" is defined twice (again in ${file})`);
      merged[key] = value;
    }
  }
  return merged;
}

const zhFiles = import.meta.glob<Tree>('./zh/*.json', { eager: true, import: 'default' });
const enFiles = import.meta.glob<Tree>('./en/*.json', { eager: true, import: 'default' });

export const zh = merge(zhFiles);
export const en = merge(enFiles);
