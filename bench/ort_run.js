// onnxruntime's side of bench/onnx_models.py: runs one ONNX model on the
// CPU with a fixed thread count, best wall time of N runs after a warm-up,
// and writes each output as raw little-endian values.
//   node ort_run.js MANIFEST.json
// MANIFEST: {"model": PATH, "threads": T, "reps": N, "out": DIR,
//            "inputs": [{"name", "dtype": "float32"|"float64", "shape", "file"}]}
// Prints {"seconds": BEST, "outputs": [{"name", "shape", "file"}]} as JSON.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(process.env.ORT_NODE_MODULE || 'onnxruntime-node');

async function main() {
  const m = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const session = await ort.InferenceSession.create(m.model, {
    intraOpNumThreads: m.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  for (const inp of m.inputs) {
    const bytes = fs.readFileSync(inp.file);
    const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const data = inp.dtype === 'float64' ? new Float64Array(buf) : new Float32Array(buf);
    feeds[inp.name] = new ort.Tensor(inp.dtype, data, inp.shape);
  }
  let result = await session.run(feeds);
  let best = Infinity;
  for (let r = 0; r < m.reps; ++r) {
    const t0 = process.hrtime.bigint();
    result = await session.run(feeds);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  const outputs = [];
  for (const name of session.outputNames) {
    const t = result[name];
    const file = path.join(m.out, name + '.ort.bin');
    fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    outputs.push({name, shape: t.dims, file});
  }
  process.stdout.write(JSON.stringify({seconds: best, outputs}) + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
