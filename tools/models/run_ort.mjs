// run_ort.mjs - run an ONNX model on ONNX Runtime (CPU) at given input shapes.
//
// Ground-truth helper for onnx-shapelint: it tells whether a model exported
// with dynamic axes really works at sizes other than the export size.
//
// Install ONNX Runtime for Node once, in a scratch directory of your choice
// (outside the repo; the package is ~300 MB):
//
//     mkdir -p SCRATCH && cd SCRATCH && npm install --ignore-scripts onnxruntime-node@1.30.0
//
// --ignore-scripts skips the postinstall step, which only downloads the CUDA 12
// execution provider from an outside feed; the CPU binding for linux/x64 (and
// the other platforms) ships inside the npm package and loads without it.
// Then either run from SCRATCH, or point NODE_PATH at SCRATCH/node_modules
// (or at SCRATCH itself):
//
//     NODE_PATH=SCRATCH/node_modules node tools/models/run_ort.mjs MODEL.onnx 'x=2,3,8,9'
//
// Usage:
//     node run_ort.mjs [options] MODEL.onnx NAME=D0,D1,... [NAME=...] [+ NAME=... ...]
//
//   Each NAME=dims gives the shape of one model input ("x=" is a scalar).
//   A lone "+" starts another run on the same session, so one model load
//   serves several sizes. Inputs not named get no value (ORT will complain).
//   Inputs are random float32 in [-1, 1) (int64 inputs: integers in [0, 10);
//   int32: same; bool: random), from a fixed-seed generator.
//
// Options:
//   --seed N        seed of the input generator (default 1)
//   --in-dir DIR    read input NAME from DIR/NAME.<run>.bin when that file
//                   exists (raw little-endian data of the input's type, run
//                   numbered from 0), instead of generating it
//   --out-dir DIR   write every output to DIR/NAME.<run>.bin (raw
//                   little-endian) for comparison with another runtime
//
// Output: one JSON line per run on stdout:
//   {"model":"m.onnx","inputs":{"x":[2,3,8,9]},"ok":true,"outputs":{"y":[2,3,2,4]}}
//   {"model":"m.onnx","inputs":{"x":[2,3,8,9]},"ok":false,"error":"..."}
// A model that cannot be loaded gives one line with "inputs":null.
// Exit status: 0 when every run succeeded, 1 when some run failed, 2 on bad
// usage or when onnxruntime-node cannot be found.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

function loadOrt() {
  const tried = [];
  const attempts = [];
  // 1. the current directory (and its parents), plus NODE_PATH via Node's own rules
  attempts.push(() => createRequire(path.join(process.cwd(), 'run_ort_anchor.js'))('onnxruntime-node'));
  // 2. each NODE_PATH entry, as a node_modules dir or as a dir holding node_modules
  for (const entry of (process.env.NODE_PATH || '').split(path.delimiter).filter(Boolean)) {
    const abs = path.resolve(entry);
    attempts.push(() => createRequire(path.join(abs, 'run_ort_anchor.js'))(path.join(abs, 'onnxruntime-node')));
    attempts.push(() => createRequire(path.join(abs, 'run_ort_anchor.js'))(path.join(abs, 'node_modules', 'onnxruntime-node')));
  }
  for (const attempt of attempts) {
    try {
      return attempt();
    } catch (e) {
      tried.push(String(e && e.message ? e.message.split('\n')[0] : e));
    }
  }
  process.stderr.write(
    'run_ort.mjs: cannot load onnxruntime-node. Install it with\n' +
      '  npm install --ignore-scripts onnxruntime-node@1.30.0\n' +
      'in a scratch directory and run from there or set NODE_PATH=<dir>/node_modules.\n' +
      'Tried:\n  ' + tried.join('\n  ') + '\n');
  process.exit(2);
}

function usage(msg) {
  if (msg) process.stderr.write(`run_ort.mjs: ${msg}\n`);
  process.stderr.write("usage: node run_ort.mjs [--seed N] [--in-dir DIR] [--out-dir DIR] MODEL.onnx 'x=2,3,8,9' ['y=...'] [+ 'x=...' ...]\n");
  process.exit(2);
}

// mulberry32: small deterministic PRNG, so runs are repeatable
function makeRng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPED = {
  float32: Float32Array,
  float64: Float64Array,
  int64: BigInt64Array,
  int32: Int32Array,
  int8: Int8Array,
  uint8: Uint8Array,
  bool: Uint8Array,
};

function makeTensor(ort, type, dims, rng, file) {
  const n = dims.reduce((p, d) => p * d, 1);
  const Ctor = TYPED[type];
  if (!Ctor) throw new Error(`unsupported input type ${type}`);
  let data;
  if (file) {
    const buf = fs.readFileSync(file);
    if (buf.length !== n * Ctor.BYTES_PER_ELEMENT)
      throw new Error(`${file}: ${buf.length} bytes, expected ${n * Ctor.BYTES_PER_ELEMENT} for ${type}[${dims}]`);
    const copy = new Uint8Array(buf); // aligned copy
    data = new Ctor(copy.buffer, 0, n);
  } else {
    data = new Ctor(n);
    for (let i = 0; i < n; i++) {
      if (type === 'int64') data[i] = BigInt(Math.floor(rng() * 10));
      else if (type === 'bool') data[i] = rng() < 0.5 ? 1 : 0;
      else if (type.startsWith('float')) data[i] = rng() * 2 - 1;
      else data[i] = Math.floor(rng() * 10);
    }
  }
  return new ort.Tensor(type, data, dims);
}

function errText(e) {
  const s = String(e && e.message ? e.message : e);
  return s.length > 2000 ? s.slice(0, 2000) + '...' : s;
}

async function main() {
  const argv = process.argv.slice(2);
  let seed = 1;
  let inDir = null;
  let outDir = null;
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--seed') seed = Number(argv[++i]);
    else if (a === '--in-dir') inDir = argv[++i];
    else if (a === '--out-dir') outDir = argv[++i];
    else if (a === '-h' || a === '--help') usage();
    else rest.push(a);
  }
  if (rest.length < 1) usage('no model given');
  if (!Number.isFinite(seed)) usage('bad --seed');
  const modelPath = rest[0];
  const runs = [[]];
  for (const a of rest.slice(1)) {
    if (a === '+') runs.push([]);
    else runs[runs.length - 1].push(a);
  }
  const specs = runs
    .filter((r) => r.length > 0)
    .map((r) => {
      const shapes = {};
      for (const s of r) {
        const m = /^([^=]+)=([0-9,\s]*)$/.exec(s);
        if (!m) usage(`bad input spec '${s}' (want NAME=D0,D1,...)`);
        shapes[m[1]] = m[2].trim() === '' ? [] : m[2].split(',').map((d) => Number(d.trim()));
      }
      return shapes;
    });
  if (specs.length === 0) usage('no input shapes given');

  const ort = loadOrt();
  let session;
  try {
    session = await ort.InferenceSession.create(modelPath, { executionProviders: ['cpu'] });
  } catch (e) {
    process.stdout.write(JSON.stringify({ model: modelPath, inputs: null, ok: false, error: errText(e) }) + '\n');
    process.exit(1);
  }
  const types = {};
  for (const md of session.inputMetadata || []) {
    if (md.isTensor) types[md.name] = md.type;
  }
  if (outDir) fs.mkdirSync(outDir, { recursive: true });

  let failed = false;
  for (let run = 0; run < specs.length; run++) {
    const shapes = specs[run];
    const rng = makeRng(seed + run);
    const line = { model: modelPath, inputs: shapes };
    try {
      const feeds = {};
      for (const [name, dims] of Object.entries(shapes)) {
        if (!session.inputNames.includes(name))
          throw new Error(`model has no input '${name}' (inputs: ${session.inputNames.join(', ')})`);
        let file = null;
        if (inDir) {
          const f = path.join(inDir, `${name}.${run}.bin`);
          if (fs.existsSync(f)) file = f;
        }
        feeds[name] = makeTensor(ort, types[name] || 'float32', dims, rng, file);
      }
      const results = await session.run(feeds);
      line.ok = true;
      line.outputs = {};
      for (const name of session.outputNames) {
        const t = results[name];
        line.outputs[name] = Array.from(t.dims, Number);
        if (outDir) {
          const d = t.data;
          fs.writeFileSync(path.join(outDir, `${name}.${run}.bin`), Buffer.from(d.buffer, d.byteOffset, d.byteLength));
        }
      }
    } catch (e) {
      failed = true;
      line.ok = false;
      line.error = errText(e);
    }
    process.stdout.write(JSON.stringify(line) + '\n');
  }
  if (session.release) await session.release();
  process.exit(failed ? 1 : 0);
}

main();
