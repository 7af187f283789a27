// Runs an ONNX model in onnxruntime (the npm package onnxruntime-node,
// installed with --ignore-scripts under $ORT_DIR): reads the inputs from a
// JSON file ({"inputs": [{"name", "dtype", "dims", "data": base64}]}) and
// writes the outputs in the same form, keyed by name. For check_export.py.
const fs = require('fs');
const ort = require(require('path').resolve(process.env.ORT_DIR, 'node_modules', 'onnxruntime-node'));
const [model, inputsPath, outputsPath] = process.argv.slice(2);
const arrays = {float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array};
(async () => {
  const spec = JSON.parse(fs.readFileSync(inputsPath));
  const session = await ort.InferenceSession.create(model);
  const feeds = {};
  for (const x of spec.inputs) {
    const bytes = Buffer.from(x.data, 'base64');
    const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    feeds[x.name] = new ort.Tensor(x.dtype, new arrays[x.dtype](copy), x.dims);
  }
  const results = await session.run(feeds);
  const out = {};
  for (const [name, t] of Object.entries(results))
    out[name] = {dtype: t.type, dims: t.dims,
                 data: Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('base64')};
  fs.writeFileSync(outputsPath, JSON.stringify(out));
})().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
