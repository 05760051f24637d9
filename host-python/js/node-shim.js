// What the compiler bundle (dist/agentsfence-compile.cjs) asks of Node, for QuickJS inside the
// Python package (agentsfence/jsengine.py). The bundle itself runs unchanged: this script runs
// first and defines `require` for the modules it imports, `process`, TextEncoder/TextDecoder and
// `WebAssembly` (for `agentsfence test`, which runs fence.wasm). Files, hashing and fence.wasm
// are the host's: the global `__afHost` functions that jsengine.py registers.
//   scripts/build.sh bundles this file with esbuild (path-browserify is Node's posix path).
import path from "path-browserify";

const G = globalThis;
const host = {
  read: G.__afRead, // (path) -> Uint8Array, or [error text]
  readText: G.__afReadText, // (path) -> string, or [error text]
  stat: G.__afStat, // (path) -> 1 file, 2 directory, 3 other, or [error text]
  write: G.__afWrite, // (path, bytes) -> "" or error text
  decode: G.__afDecode, // (bytes, fatal) -> string, or null when fatal and not UTF-8
  sha256: G.__afSha256, // (bytes) -> Uint8Array
  cwd: G.__afCwd, // () -> string
  wasmCompile: G.__afWasmCompile, // (bytes) -> module id, or [error text]
  wasmInstantiate: G.__afWasmInstantiate, // (module id) -> [instance id, export names, memory bytes]
  wasmCall: G.__afWasmCall, // (instance id, name, args, writes) -> [result, changes]
};

// ---- process ----

const output = { stdout: [], stderr: [] };
G.__afOutput = output;
const proc = {
  argv: ["node", "agentsfence-compile"],
  env: {},
  exitCode: undefined,
  platform: "linux",
  cwd: () => host.cwd(),
  stdout: { write: (text) => (output.stdout.push(String(text)), true) },
  stderr: { write: (text) => (output.stderr.push(String(text)), true) },
  emitWarning: (warning) => {
    output.stderr.push(`Warning: ${warning && warning.message !== undefined ? warning.message : warning}\n`);
  },
};
G.process = proc;

// ---- text ----

function encodeUtf8(text) {
  const out = new Uint8Array(text.length * 3);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      out[n++] = c;
      continue;
    }
    if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 63);
      continue;
    }
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        i++;
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        out[n++] = 0xf0 | (c >> 18);
        out[n++] = 0x80 | ((c >> 12) & 63);
        out[n++] = 0x80 | ((c >> 6) & 63);
        out[n++] = 0x80 | (c & 63);
        continue;
      }
    }
    if (c >= 0xd800 && c < 0xe000) c = 0xfffd; // a lone surrogate, as Node's TextEncoder writes it
    out[n++] = 0xe0 | (c >> 12);
    out[n++] = 0x80 | ((c >> 6) & 63);
    out[n++] = 0x80 | (c & 63);
  }
  return out.slice(0, n);
}

class TextEncoder {
  get encoding() {
    return "utf-8";
  }
  encode(text = "") {
    return encodeUtf8(String(text));
  }
}

class TextDecoder {
  constructor(label = "utf-8", options = {}) {
    if (!/^utf-?8$/i.test(String(label))) throw new RangeError(`The "${label}" encoding is not supported`);
    this.fatal = Boolean(options && options.fatal);
  }
  get encoding() {
    return "utf-8";
  }
  decode(input) {
    if (input === undefined) return "";
    const bytes = input instanceof Uint8Array ? input : ArrayBuffer.isView(input)
      ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength) : new Uint8Array(input);
    const text = host.decode(bytes, this.fatal);
    if (text === null) throw new TypeError("The encoded data was not valid for encoding utf-8");
    return text;
  }
}

G.TextEncoder = TextEncoder;
G.TextDecoder = TextDecoder;

// ---- node:fs, node:crypto, node:url ----

function failure(answer) {
  // The host's text is Node's: "ENOENT: no such file or directory, open 'x.yaml'".
  const text = String(answer[0]);
  const error = new Error(text);
  error.code = text.split(":")[0];
  return error;
}

const fs = {
  readFileSync(file, options) {
    const encoding = typeof options === "string" ? options : options && options.encoding;
    const answer = encoding ? host.readText(String(file)) : host.read(String(file));
    if (Array.isArray(answer)) throw failure(answer);
    return answer;
  },
  statSync(file) {
    const answer = host.stat(String(file));
    if (Array.isArray(answer)) throw failure(answer);
    return { isFile: () => answer === 1, isDirectory: () => answer === 2 };
  },
  existsSync(file) {
    return !Array.isArray(host.stat(String(file)));
  },
  writeFileSync(file, data) {
    const bytes = typeof data === "string" ? encodeUtf8(data) : data;
    const error = host.write(String(file), bytes);
    if (error) throw failure([error]);
  },
};

function hex() {
  return Array.from(this, (b) => b.toString(16).padStart(2, "0")).join("");
}

const crypto = {
  createHash(algorithm) {
    if (algorithm !== "sha256") throw new Error(`only sha256 is hashed here, not ${algorithm}`);
    const parts = [];
    const hash = {
      update(data) {
        parts.push(typeof data === "string" ? encodeUtf8(data) : data);
        return hash;
      },
      digest(encoding) {
        const total = parts.reduce((n, p) => n + p.length, 0);
        const joined = new Uint8Array(total);
        let at = 0;
        for (const p of parts) {
          joined.set(p, at);
          at += p.length;
        }
        const digest = host.sha256(joined);
        digest.toString = function (enc) {
          return enc === "hex" ? hex.call(this) : Uint8Array.prototype.toString.call(this);
        };
        return encoding === "hex" ? hex.call(digest) : digest;
      },
    };
    return hash;
  },
};

const url = {
  fileURLToPath(u) {
    const text = String(u);
    if (!text.startsWith("file://")) throw new TypeError(`not a file URL: ${text}`);
    return decodeURIComponent(text.slice("file://".length));
  },
};

const modules = {
  "node:fs": fs,
  fs,
  "node:path": path,
  path,
  "node:crypto": crypto,
  crypto,
  "node:url": url,
  url,
  "node:process": proc,
  process: proc,
  buffer: {}, // no Buffer: the yaml package then uses atob/btoa
};

G.require = (name) => {
  if (!Object.prototype.hasOwnProperty.call(modules, name)) throw new Error(`Cannot find module '${name}'`);
  return modules[name];
};

// ---- WebAssembly, for `test`: fence.wasm runs in the host's wasmtime ----
// The instance's memory is mirrored in an ArrayBuffer here. Writes through typed arrays' and
// DataViews' methods (set, fill, copyWithin, setUint32, ...) on a mirror are noted and sent with
// the next export call; after it, the host sends back the parts of memory that changed. A
// write through an index (`bytes[i] = x`) is not seen: compiler/ and assembly/test/host.ts
// write with `set` only, and the test that runs every test file with Node and here checks it.

const mirrors = new WeakMap(); // mirror ArrayBuffer -> its instance's pending writes
const TypedArray = Object.getPrototypeOf(Uint8Array.prototype);

function noteWrite(buffer, start, length) {
  const pending = mirrors.get(buffer);
  if (pending !== undefined && length > 0) pending.push([start, length]);
}

const typedSet = TypedArray.set;
TypedArray.set = function (source, offset = 0) {
  const result = typedSet.call(this, source, offset);
  if (mirrors.has(this.buffer)) noteWrite(this.buffer, this.byteOffset + offset * this.BYTES_PER_ELEMENT, source.length * this.BYTES_PER_ELEMENT);
  return result;
};
for (const name of ["fill", "copyWithin", "reverse", "sort"]) {
  const original = TypedArray[name];
  TypedArray[name] = function (...args) {
    const result = original.apply(this, args);
    if (mirrors.has(this.buffer)) noteWrite(this.buffer, this.byteOffset, this.byteLength);
    return result;
  };
}
for (const name of Object.getOwnPropertyNames(DataView.prototype)) {
  if (!name.startsWith("set")) continue;
  const original = DataView.prototype[name];
  const width = { setInt8: 1, setUint8: 1, setInt16: 2, setUint16: 2, setFloat16: 2, setInt32: 4, setUint32: 4, setFloat32: 4, setFloat64: 8, setBigInt64: 8, setBigUint64: 8 }[name] ?? 8;
  DataView.prototype[name] = function (offset, ...rest) {
    const result = original.call(this, offset, ...rest);
    if (mirrors.has(this.buffer)) noteWrite(this.buffer, this.byteOffset + offset, width);
    return result;
  };
}

class CompileError extends Error {}
class RuntimeError extends Error {}

class Module {
  constructor(bytes) {
    const view = bytes instanceof Uint8Array ? bytes : ArrayBuffer.isView(bytes)
      ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
    const answer = host.wasmCompile(view);
    if (Array.isArray(answer)) throw new CompileError(String(answer[0]));
    this.__id = answer;
  }
}

function copyOf(view) {
  return view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength);
}

class Instance {
  constructor(module, imports) {
    if (!(module instanceof Module)) throw new TypeError("WebAssembly.Instance(): Argument 0 must be a WebAssembly.Module");
    const [id, names, initial] = host.wasmInstantiate(module.__id, imports === undefined ? 0 : Object.keys(imports).length);
    let mirror = copyOf(initial);
    let pending = [];
    mirrors.set(mirror, pending);
    const memory = {
      get buffer() {
        return mirror;
      },
    };
    const exports = { memory };
    for (const name of names) {
      exports[name] = (...args) => {
        const bytes = new Uint8Array(mirror);
        const writes = [];
        for (const [start, length] of pending) writes.push(start, bytes.slice(start, start + length));
        pending.length = 0;
        const [result, changes, error] = host.wasmCall(id, name, args, writes);
        if (changes !== null) {
          if (changes.length === 1) {
            // memory grew: a new buffer, as WebAssembly.Memory gives after a grow
            mirror = copyOf(changes[0]);
            pending = [];
            mirrors.set(mirror, pending);
          } else {
            for (let i = 0; i < changes.length; i += 2) typedSet.call(bytes, changes[i + 1], changes[i]);
          }
        }
        if (error !== null) throw new RuntimeError(String(error));
        return result;
      };
    }
    this.exports = Object.freeze(exports);
  }
}

G.WebAssembly = { Module, Instance, CompileError, RuntimeError };

G.__afArgs = (argv) => {
  proc.argv = ["node", "agentsfence-compile", ...argv];
};
