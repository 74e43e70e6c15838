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
// onnxruntime-node is looked up and inputs are made as in tests/infer/real/run_ort.js (shared code).
'use strict';

const fs = require('fs');
const path = require('path');

const {loadOrt, makeTensor} = require(path.join(__dirname, '..', 'real', 'run_ort.js'));

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
      session = await ort.InferenceSession.create(job.model, {graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1});
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
