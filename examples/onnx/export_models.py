#!/usr/bin/env python3
"""Exports three small PyTorch models to ONNX (opset 17) with the inputs
and outputs PyTorch computes, for the lesson "optimize a PyTorch model"
(README.md here):

- mlp.onnx: a 3-layer perceptron, x (4, 16) -> logits (4, 10)
- lstm_lm.onnx: a 2-layer LSTM language model, tokens (6, 2) int64 ->
  logits (6, 2, 20)
- transformer.onnx: torch.nn.TransformerEncoderLayer (d_model 16, 2 heads,
  feed-forward 32, dropout off), x (5, 2, 16) -> y (5, 2, 16)

Beside each model: NAME.input.npy (its input) and NAME.output.npy
(PyTorch's output). Run from this folder: python3 export_models.py
"""
import numpy as np
import torch

torch.manual_seed(0)


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32),
                                       torch.nn.Tanh(), torch.nn.Linear(32, 10))

    def forward(self, x):
        return self.net(x)


class LstmLm(torch.nn.Module):
    def __init__(self, vocab=20, dim=8, hidden=12):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.lstm = torch.nn.LSTM(dim, hidden, num_layers=2)
        self.out = torch.nn.Linear(hidden, vocab)

    def forward(self, tokens):
        h, _ = self.lstm(self.embed(tokens))
        return self.out(h)


def export(name, model, x, input_name, output_name):
    model.eval()
    with torch.no_grad():
        y = model(x)
    torch.onnx.export(model, (x,), f"{name}.onnx", opset_version=17, input_names=[input_name],
                      output_names=[output_name], do_constant_folding=True)
    np.save(f"{name}.input.npy", x.numpy())
    np.save(f"{name}.output.npy", y.numpy())


export("mlp", Mlp(), torch.randn(4, 16), "x", "logits")
export("lstm_lm", LstmLm(), torch.randint(0, 20, (6, 2)), "tokens", "logits")
layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0)
export("transformer", layer, torch.randn(5, 2, 16), "x", "y")
