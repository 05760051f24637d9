// Normal forms of docs/bytecode.md §6 for values taken from a call or a message: e-mail
// addresses, hosts, URLs and paths. Results are written to the per-call scratch arena and
// returned as (ptr << 32 | len); 0 means no value (empty, or memory exhausted).
// Each kind has its file: normalize_path.ts (paths, patterns), normalize_env.ts (the configured
// folders), normalize_email.ts, normalize_url.ts (hosts, URLs), on normalize_span.ts; this module
// is where their readers import them from.
export { takeOutOfMemory, span, spanPtr, spanLen } from "./normalize_span";
export { homePtr, homeLen, cwdPtr, cwdLen, isRelativePath, resolvePath, resolvePattern } from "./normalize_path";
export { hermesPtr, hermesLen, configureEnv } from "./normalize_env";
export { normalizeEmail, isAddress } from "./normalize_email";
export { urlHost, normalizeUrl, hostOfNormalUrl, urlIsBareHost, normalizeHost, fileUrlPath } from "./normalize_url";
