// The `process` the compiler reads in the browser: paths are shown relative to "/".
export const process = { cwd: () => "/" };
