"""The embedding model's transformer run by ONNX Runtime, for one query at a time.

A query is one short text. Torch spends much of a single short forward pass in per-operator dispatch; ONNX Runtime
runs the same graph, fused, in about half the CPU (all-MiniLM-L6-v2 on this hardware: 9–10 ms → 4.7–5 ms). The
graph is exported from the loaded model when a process first needs it (about two seconds; nothing is downloaded or
written to disk), and ``memoryhub.embeddings`` uses it only after checking it gives the model's vectors.
"""

from __future__ import annotations

import io
import logging
import warnings

import numpy as np

logger = logging.getLogger(__name__)


class OnnxQueryEncoder:
    """``encode(input_ids, attention_mask)`` → the transformer's last hidden state, as numpy."""

    def __init__(self, session):
        self._session = session

    def __call__(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        feeds = {"input_ids": input_ids.astype(np.int64), "attention_mask": attention_mask.astype(np.int64)}
        return self._session.run(None, feeds)[0]


def onnx_query_encoder(transformer, tokenizer, threads: int) -> OnnxQueryEncoder | None:
    """``transformer`` (a Hugging Face encoder taking ``input_ids`` and ``attention_mask``) exported to ONNX and
    loaded in an ONNX Runtime session with ``threads`` intra-op threads; ``None`` when ONNX Runtime is not installed
    or the export fails (the caller keeps its torch path)."""
    try:
        import onnxruntime
        import torch
    except ImportError:
        return None

    class _LastHidden(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    example = tokenizer(["warm up the query encoder"], return_tensors="pt")
    training = transformer.training
    graph = io.BytesIO()
    axes = {0: "batch", 1: "tokens"}
    try:
        # The exporter warns about shape-dependent branches and its own deprecation; the caller's check decides.
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            # (The exporter puts the module back in the mode it found it: the wrapper must be in eval mode too, or
            # the model comes back in training mode with dropout on.)
            torch.onnx.export(
                _LastHidden(transformer).eval(),
                (example["input_ids"], example["attention_mask"]),
                graph,
                input_names=["input_ids", "attention_mask"],
                output_names=["last_hidden_state"],
                dynamic_axes={"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes},
                opset_version=17,
                dynamo=False,
            )
        options = onnxruntime.SessionOptions()
        # Like torch's one intra-op thread: web workers and recall's channel threads supply the parallelism.
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        session = onnxruntime.InferenceSession(graph.getvalue(), options, providers=["CPUExecutionProvider"])
    except Exception:  # an exporter or runtime that cannot take this model: the torch path stays
        logger.warning("could not export the query encoder to ONNX", exc_info=True)
        return None
    finally:
        transformer.train(training)
    return OnnxQueryEncoder(session)
