// node:url for the compiler in the browser: load.ts asks for its own file only to find the
// shipped policy, which the playground always names by path.
export function fileURLToPath(url: string): string {
  throw new Error(`the playground has no files of its own (${url})`);
}
