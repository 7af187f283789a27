"""The Python module's ONNX functions: Graph.from_onnx and graph.to_onnx
(tools/python/onnx_io.cpp)."""
import os
import pathlib

import numpy as np
import pytest

import eqsat

SOURCE = pathlib.Path(os.environ.get("EQSAT_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
MODELS = SOURCE / "examples" / "onnx"


def test_from_onnx_runs_to_pytorchs_outputs():
    g = eqsat.Graph.from_onnx(str(MODELS / "mlp.onnx"))
    assert g.inputs == ["x"]
    assert g.outputs == ["logits"]
    x = np.load(MODELS / "mlp.input.npy")
    y = eqsat.compile(eqsat.optimize(g))(x=x)
    np.testing.assert_allclose(y, np.load(MODELS / "mlp.output.npy"), rtol=1e-4, atol=1e-5)


def test_to_onnx_round_trips(tmp_path):
    g = eqsat.Graph.from_onnx(str(MODELS / "transformer.onnx"))
    path = tmp_path / "t.onnx"
    eqsat.optimize(g).to_onnx(str(path))
    again = eqsat.Graph.from_onnx(str(path))
    x = np.load(MODELS / "transformer.input.npy")
    y = eqsat.compile(again)(x=x)
    np.testing.assert_allclose(y, np.load(MODELS / "transformer.output.npy"), rtol=1e-4, atol=1e-5)


def test_a_refusal_is_an_eqsat_error(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(eqsat.Error, match="not an ONNX model"):
        eqsat.Graph.from_onnx(str(bad))
    g = eqsat.Graph.parse("(input x (f64 3))\n(output y (hypot x x))")
    with pytest.raises(eqsat.Error, match="hypot"):
        g.to_onnx(str(tmp_path / "y.onnx"))
