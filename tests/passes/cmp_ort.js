#!/usr/bin/env node
// Runs pairs of models with ONNX Runtime (npm onnxruntime-node, graph optimizations and weight
// prepacking off) on the same inputs and compares every output bit for bit (NaN equals NaN, -0
// differs from +0).
//   node cmp_ort.js JOBS.json   JOBS: [{"a": "A.onnx", "b": "B.onnx", "spec": {...}}, ...]
// spec as for ../infer/real/run_ort.js: one set of random inputs per job, fed to both models.
// A job may give "rel" and "abs": float outputs then also count as "CLOSE" when every element
// differs by at most rel times the larger magnitude plus abs (a kernel that sums in another order).
// A job may give "expect": {output name: {"shape": [...], "value": [...]}}, the reference outputs
// that came with the model: when A does not run but B does (or always, with "always_expect"),
// B's outputs are compared with them (float within 1e-3 relative plus 1e-5 absolute, the backend
// tests' tolerance; others exactly), verdict "REFERENCE" when they agree and A did not run.
// Prints one JSON line per job: {"job": i, "verdict": "SAME" | "CLOSE" | "REFERENCE" | "DIFF" | "BOTH_FAIL", "detail": "..."}.
'use strict';
const fs = require('fs');
const {loadOrt, makeTensor} = require('../infer/real/run_ort.js');

// Prepacking off too: kernels such as LSTM's and Gemm's repack weights that are constants into
// another layout and compute with other code, whose results differ in the last bits (silero VAD
// v5's LSTM once folding made its W and R constants: stateN off by 1e-7). That is the kernel's
// choice, not the model's meaning, which is what is compared here.
const options = {graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1,
                 extra: {session: {disable_prepacking: '1'}}};

async function runModel(ort, path, feeds) {
  const session = await ort.InferenceSession.create(path, options);
  return {names: session.outputNames, results: await session.run(feeds)};
}

function same(x, y, rel = 0, abs = 0) {
  if (!x || !y || !x.dims || !y.dims) return x === y;
  if (JSON.stringify(Array.from(x.dims)) !== JSON.stringify(Array.from(y.dims)) || x.type !== y.type) return false;
  const close = (rel > 0 || abs > 0) && (x.type === 'float32' || x.type === 'float64');
  for (let i = 0; i < x.data.length; i++) {
    const p = x.data[i], q = y.data[i];
    // (Object.is: NaN equals NaN, and -0 differs from +0, which === takes for equal.)
    if (Object.is(p, q)) continue;
    if (close && Math.abs(p - q) <= rel * Math.max(Math.abs(p), Math.abs(q)) + abs) continue;
    return false;
  }
  return true;
}

async function main() {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const ort = loadOrt();
  for (let j = 0; j < jobs.length; j++) {
    // One set of random tensors per job, fed to both models.
    const feeds = {};
    for (const [name, s] of Object.entries(jobs[j].spec)) feeds[name] = makeTensor(ort, s);
    let ra, rb, ea = null, eb = null;
    try { ra = await runModel(ort, jobs[j].a, feeds); } catch (e) { ea = String(e.message || e).split('\n')[0]; }
    try { rb = await runModel(ort, jobs[j].b, feeds); } catch (e) { eb = String(e.message || e).split('\n')[0]; }
    let verdict = 'SAME', detail = '';
    if (!eb && jobs[j].expect && (ea || jobs[j].always_expect)) {
      verdict = 'REFERENCE';
      for (const [k, e] of Object.entries(jobs[j].expect)) {
        const got = rb.results[k];
        const ok = got && JSON.stringify(Array.from(got.dims)) === JSON.stringify(e.shape) &&
          got.data.length === e.value.length &&
          Array.from(got.data).every((v, i) => {
            const w = e.value[i];
            if (typeof v === 'bigint') return v === BigInt(w);
            if (Number.isNaN(v) && Number.isNaN(w)) return true;
            return v === w || Math.abs(v - w) <= 1e-3 * Math.abs(w) + 1e-5;
          });
        if (!ok) { verdict = 'DIFF'; detail = `a: ${ea || 'ran'}; b ran, output ${k} differs from the reference`; break; }
      }
      if (!ea && verdict === 'REFERENCE') verdict = 'SAME';  // and A's outputs, below
    }
    if (verdict === 'REFERENCE' || verdict === 'DIFF') {
      // decided above
    } else if (ea || eb) {
      verdict = ea && eb ? 'BOTH_FAIL' : 'DIFF';
      detail = `a: ${ea || 'ran'}; b: ${eb || 'ran'}`;
    } else {
      for (const k of ra.names) {
        if (same(ra.results[k], rb.results[k])) continue;
        if ((jobs[j].rel || jobs[j].abs) && same(ra.results[k], rb.results[k], jobs[j].rel || 0, jobs[j].abs || 0)) {
          verdict = 'CLOSE';
          continue;
        }
        verdict = 'DIFF'; detail = `output ${k}`; break;
      }
    }
    process.stdout.write(JSON.stringify({job: j, verdict, detail}) + '\n');
  }
}
main().catch((e) => {
  process.stderr.write(`cmp_ort.js: ${e && e.stack ? e.stack : e}\n`);
  process.exit(2);
});
