#!/usr/bin/env node
// Which attribute names ONNX Runtime's loader accepts on one node, for scripts/probe_ort_contrib_types.py.
//
//   node probe_attribute_names.js JOBS.json CANDIDATES.txt
//
// JOBS.json: [{"op": name, "model": base64, "graph": base64, "node": base64}]: the serialized
// ModelProto without its graph, the GraphProto without its node, and the NodeProto of a one-node
// model. For every candidate name (one per line) the model is assembled again with an int
// attribute of that name appended to the node, and a session is created from the bytes (never
// run). ONNX Runtime checks a node's attribute names against the operator's schema before anything
// else about the node: "Unrecognized attribute: NAME" means the schema has no such attribute; any
// other outcome (loaded, a wrong attribute type, a later error) means it has. Prints one JSON
// object {op: [accepted names]}.
'use strict';

const fs = require('fs');
const path = require('path');
const {loadOrt} = require(path.join(__dirname, '..', '..', 'tests', 'infer', 'real', 'run_ort.js'));

function varint(n) {
  const out = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

// A length-delimited field: tag byte(s) for field `field`, wire type 2.
function lenField(field, bytes) {
  return Buffer.concat([varint(field * 8 + 2), varint(bytes.length), bytes]);
}

// AttributeProto {name: 1, i: 3, type: 20 = INT (2)}
function intAttribute(name) {
  return Buffer.concat([lenField(1, Buffer.from(name, 'utf8')), Buffer.from([0x18, 0x01]), varint(20 * 8), varint(2)]);
}

async function main() {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const candidates = fs.readFileSync(process.argv[3], 'utf8').split('\n').filter((s) => s.length > 0);
  const ort = loadOrt();
  // logSeverityLevel 4 (fatal only): kernels refusing the probe's attribute values log errors otherwise.
  const opts = {graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 4};
  const result = {};
  for (const job of jobs) {
    const model = Buffer.from(job.model, 'base64');
    const graph = Buffer.from(job.graph, 'base64');
    const node = Buffer.from(job.node, 'base64');
    const accepted = [];
    for (const name of candidates) {
      const n = Buffer.concat([node, lenField(5, intAttribute(name))]);  // NodeProto.attribute = 5
      const g = Buffer.concat([graph, lenField(1, n)]);                   // GraphProto.node = 1
      const bytes = Buffer.concat([model, lenField(7, g)]);              // ModelProto.graph = 7
      try {
        const s = await ort.InferenceSession.create(bytes, opts);
        if (s.release) await s.release();
        accepted.push(name);
      } catch (e) {
        const m = String(e && e.message ? e.message : e);
        if (!m.includes('Unrecognized attribute: ' + name + ' for operator')) accepted.push(name);
      }
    }
    result[job.op] = accepted;
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
