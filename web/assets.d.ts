// What esbuild's loaders give the playground: fence.wasm as bytes, the shipped policy as text.
declare module "*.wasm" {
  const bytes: Uint8Array;
  export default bytes;
}
declare module "*.yaml" {
  const text: string;
  export default text;
}
