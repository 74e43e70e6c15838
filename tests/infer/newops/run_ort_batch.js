#!/usr/bin/env node
// Runs many small ONNX models with ONNX Runtime (npm onnxruntime-node) in one process and prints
// each output's dims and element type, per input binding (used by verify_newops.py).
//
//   node run_ort_batch.js JOBS.json
//
// JOBS.json: [{"name": case, "model": path, "runs": [SPEC, ...]}] where SPEC maps each input name
// to {"shape": [...], "dtype": "float32"|..|"string", "int_range": [lo, hi), "value": [...]}
// (as tests/infer/real/run_ort.js). Prints one JSON object:
//   {case: {"error": "session creation message"} |
//          {"runs": [{"outputs": {name: {"dims": [...], "type": "float32"}}} | {"error": ...}]}}
// onnxruntime-node is looked up under $OXIR_ORT_DIR/node_modules, ~/.cache/oxir/ort/node_modules,
// then normally.
'use strict';

const fs = require('fs');
const path = require('path');

function loadOrt() {
  const dirs = [];
  if (process.env.OXIR_ORT_DIR) dirs.push(path.join(process.env.OXIR_ORT_DIR, 'node_modules'));
  dirs.push(path.join(require('os').homedir(), '.cache', 'oxir', 'ort', 'node_modules'));
  for (const d of dirs) {
    try {
      return require(require.resolve('onnxruntime-node', {paths: [d]}));
    } catch (e) { /* next */ }
  }
  return require('onnxruntime-node');
}

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

function msg(e) {
  return String(e && e.message ? e.message : e).split('\n').slice(0, 3).join(' ').slice(0, 600);
}

async function main() {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const ort = loadOrt();
  const result = {};
  for (const job of jobs) {
    if (process.env.OXIR_ORT_TRACE) process.stderr.write(job.name + '\n');
    let session;
    try {
      session = await ort.InferenceSession.create(job.model, {graphOptimizationLevel: 'disabled'});
    } catch (e) {
      result[job.name] = {error: msg(e)};
      continue;
    }
    const runs = [];
    for (const spec of job.runs) {
      try {
        const feeds = {};
        for (const name of session.inputNames) {
          if (!spec[name]) throw new Error(`no spec for input '${name}'`);
          feeds[name] = makeTensor(ort, spec[name]);
        }
        const res = await session.run(feeds);
        const outputs = {};
        for (const name of session.outputNames) {
          outputs[name] = {dims: Array.from(res[name].dims, Number), type: res[name].type};
        }
        runs.push({outputs});
      } catch (e) {
        runs.push({error: msg(e)});
      }
    }
    if (session.release) await session.release();
    result[job.name] = {runs};
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((e) => {
  process.stderr.write(`run_ort_batch.js: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
