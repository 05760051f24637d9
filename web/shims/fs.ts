// node:fs for the compiler in the browser: the files the playground holds in memory (the
// shipped policy that `extends: [defaults]` names). The user's policy is passed as text.
const files = new Map<string, string>();

export function addFile(path: string, text: string): void {
  files.set(path, text);
}

function missing(path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file in the playground: ${path}`), { code: "ENOENT" });
}

export function readFileSync(path: string): string {
  const text = files.get(path);
  if (text === undefined) throw missing(path);
  return text;
}

export function statSync(path: string): { isFile(): boolean } {
  if (!files.has(path)) throw missing(path);
  return { isFile: () => true };
}
