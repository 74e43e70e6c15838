#!/usr/bin/env node
// Runs a model with ONNX Runtime on fixed inputs and prints every output's dims and values as JSON.
//   node run_values.js MODEL.onnx SPEC_JSON   (SPEC_JSON as for ../infer/real/run_ort.js, with "value")
'use strict';
const fs = require('fs');
const {loadOrt, makeTensor} = require('../infer/real/run_ort.js');

async function main() {
  const [model, specArg] = process.argv.slice(2);
  const spec = JSON.parse(specArg.startsWith('@') ? fs.readFileSync(specArg.slice(1), 'utf8') : specArg);
  const ort = loadOrt();
  const session = await ort.InferenceSession.create(model, {intraOpNumThreads: 1, interOpNumThreads: 1});
  const feeds = {};
  for (const name of session.inputNames) feeds[name] = makeTensor(ort, spec[name]);
  const results = await session.run(feeds);
  const outputs = {};
  for (const name of session.outputNames)
    outputs[name] = {dims: Array.from(results[name].dims, Number), values: Array.from(results[name].data, Number)};
  process.stdout.write(JSON.stringify({outputs}) + '\n');
}
main().catch((e) => {
  process.stderr.write(`run_values.js: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
