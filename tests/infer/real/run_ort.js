#!/usr/bin/env node
// Runs an ONNX model with ONNX Runtime (npm onnxruntime-node) on random inputs of given shapes and
// prints the output shapes as JSON.
//
//   node run_ort.js MODEL.onnx SPEC_JSON
//
// SPEC_JSON (a JSON string, or @file): {"input name": {"shape": [2, 7], "dtype": "float32",
//   "int_range": [lo, hi) (integers only, default [0, 10)), "value": [..] (fixed contents)}, ...}
// dtype: float32 float64 float16 int8 uint8 int16 uint16 int32 uint32 int64 uint64 bool string
// (default float32).
// Prints {"outputs": {"name": [dims...], ...}} in the session's output order.
// SPEC_JSON may also be a list of specs: the model is then loaded once and run once per spec, and
// {"runs": [{"outputs": ...}, ...]} is printed. Each run's random inputs start from the same seed,
// so a run gets the inputs it would get alone.
//
// onnxruntime-node is looked up normally, then under $OXIR_ORT_DIR/node_modules (the cache the
// verification driver installs it into with `npm install --ignore-scripts`).
// Also a module: loadOrt() and makeTensor(ort, spec) serve tests/infer/newops/run_ort_batch.js.
'use strict';

const fs = require('fs');
const path = require('path');

function loadOrt() {
  const tried = [];
  const dirs = [];
  if (process.env.OXIR_ORT_DIR) dirs.push(path.join(process.env.OXIR_ORT_DIR, 'node_modules'));
  dirs.push(path.join(require('os').homedir(), '.cache', 'oxir', 'ort', 'node_modules'));
  for (const d of dirs) {
    try {
      return require(require.resolve('onnxruntime-node', {paths: [d]}));
    } catch (e) {
      tried.push(`${d}: ${e.message.split('\n')[0]}`);
    }
  }
  try {
    return require('onnxruntime-node');
  } catch (e) {
    tried.push(`default: ${e.message.split('\n')[0]}`);
  }
  throw new Error('cannot load onnxruntime-node:\n  ' + tried.join('\n  '));
}

// Deterministic generator so runs are reproducible.
let seed = 12345;
function rnd() {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}

function makeTensor(ort, spec) {
  const dtype = spec.dtype || 'float32';
  const shape = spec.shape || [];
  const n = shape.reduce((a, b) => a * b, 1);
  const [lo, hi] = spec.int_range || [0, 10];
  const ints = () => Math.floor(lo + rnd() * (hi - lo));
  const fixed = spec.value;
  const pick = (i, gen) => (fixed ? fixed[i % fixed.length] : gen());
  let data;
  switch (dtype) {
    case 'float32': data = Float32Array.from({length: n}, (_, i) => pick(i, () => rnd() * 2 - 1)); break;
    case 'float64': data = Float64Array.from({length: n}, (_, i) => pick(i, () => rnd() * 2 - 1)); break;
    case 'float16': data = new Uint16Array(n).fill(0x3c00); break;
    case 'int8': data = Int8Array.from({length: n}, (_, i) => pick(i, ints)); break;
    case 'uint8': data = Uint8Array.from({length: n}, (_, i) => pick(i, ints)); break;
    case 'int16': data = Int16Array.from({length: n}, (_, i) => pick(i, ints)); break;
    case 'uint16': data = Uint16Array.from({length: n}, (_, i) => pick(i, ints)); break;
    case 'int32': data = Int32Array.from({length: n}, (_, i) => pick(i, ints)); break;
    case 'uint32': data = Uint32Array.from({length: n}, (_, i) => pick(i, ints)); break;
    case 'int64': data = BigInt64Array.from({length: n}, (_, i) => BigInt(pick(i, ints))); break;
    case 'uint64': data = BigUint64Array.from({length: n}, (_, i) => BigInt(pick(i, ints))); break;
    case 'bool': data = Uint8Array.from({length: n}, (_, i) => (pick(i, () => (rnd() < 0.5 ? 0 : 1)) ? 1 : 0)); break;
    case 'string': data = Array.from({length: n}, (_, i) => String(pick(i, () => 'ab'))); break;
    default: throw new Error(`unsupported dtype ${dtype}`);
  }
  return new ort.Tensor(dtype, data, shape);
}

async function main() {
  const [model, specArg] = process.argv.slice(2);
  if (!model || !specArg) {
    process.stderr.write('usage: node run_ort.js MODEL.onnx SPEC_JSON|@file\n');
    process.exit(2);
  }
  const arg = JSON.parse(specArg.startsWith('@') ? fs.readFileSync(specArg.slice(1), 'utf8') : specArg);
  const ort = loadOrt();
  // One thread: creating the default thread pools costs more than loading or running these models.
  const session = await ort.InferenceSession.create(model, {graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1});
  const runOnce = async (spec) => {
    seed = 12345;
    const feeds = {};
    for (const name of session.inputNames) {
      if (!spec[name]) throw new Error(`no spec for input '${name}'`);
      feeds[name] = makeTensor(ort, spec[name]);
    }
    const results = await session.run(feeds);
    const outputs = {};
    // null for what is not a tensor (a sequence, a map): only tensors have dims to compare.
    for (const name of session.outputNames) {
      const t = results[name];
      outputs[name] = t && t.dims ? Array.from(t.dims, Number) : null;
    }
    return {outputs};
  };
  if (Array.isArray(arg)) {
    const runs = [];
    for (const spec of arg) runs.push(await runOnce(spec));
    process.stdout.write(JSON.stringify({runs}) + '\n');
  } else {
    process.stdout.write(JSON.stringify(await runOnce(arg)) + '\n');
  }
}

module.exports = {loadOrt, makeTensor};

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`run_ort.js: ${e && e.stack ? e.stack : e}\n`);
    process.exit(1);
  });
}
