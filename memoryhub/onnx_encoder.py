"""The embedding model's transformer run by ONNX Runtime, one text at a time (queries and retained texts alike).

A query is one short text. Torch spends much of a single short forward pass in per-operator dispatch; ONNX Runtime
runs the same graph, fused, in about half the CPU (all-MiniLM-L6-v2 on this hardware: 9–10 ms → 4.7–5 ms). The
graph is exported from the loaded model by the first process that needs it (about two seconds, nothing downloaded)
and kept in the data directory for the others: exporting leaves about 150 MB behind in the process that did it,
loading the file only ONNX Runtime's copy of the weights. ``memoryhub.embeddings`` uses the session only after
checking it gives the model's vectors.
"""

from __future__ import annotations

import hashlib
import logging
import os
import warnings
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)


class OnnxQueryEncoder:
    """``encode(input_ids, attention_mask)`` → the transformer's last hidden state, as numpy."""

    def __init__(self, session):
        self._session = session

    def __call__(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        feeds = {"input_ids": input_ids.astype(np.int64), "attention_mask": attention_mask.astype(np.int64)}
        return self._session.run(None, feeds)[0]


def graph_path(directory: Path, model_path: str) -> Path:
    """Where the exported graph of the model at ``model_path`` is kept: named by the model's files and the versions
    of the exporter, so another model or another torch exports its own."""
    import torch

    model = Path(model_path)
    files = sorted(f for f in model.rglob("*") if f.is_file()) if model.is_dir() else []
    key = hashlib.sha256(
        "\n".join([str(model.resolve()), torch.__version__, *(f"{f.name}:{f.stat().st_size}" for f in files)]).encode()
    ).hexdigest()[:16]
    return directory / f"query-encoder-{key}.onnx"


def onnx_query_encoder(
    transformer, tokenizer, threads: int, graph: Path, *, int8: bool = False
) -> OnnxQueryEncoder | None:
    """``transformer`` (a Hugging Face encoder taking ``input_ids`` and ``attention_mask``) as an ONNX Runtime
    session with ``threads`` intra-op threads, loaded from ``graph`` (exported there first if it is not there yet);
    with ``int8``, from the graph's int8 copy (``int8_graph``). ``None`` when ONNX Runtime is not installed or the
    export or quantization fails (the caller keeps another path)."""
    try:
        import onnxruntime
    except ImportError:
        return None
    try:
        if not graph.exists():
            _export(transformer, tokenizer, graph)
        if int8:
            graph = int8_graph(graph)
        options = onnxruntime.SessionOptions()
        # Like torch's one intra-op thread: web workers and recall's channel threads supply the parallelism.
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        session = onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
    except Exception:  # an exporter or runtime that cannot take this model: the torch path stays
        logger.warning("could not run the query encoder in ONNX Runtime", exc_info=True)
        graph.unlink(missing_ok=True)  # a damaged file is exported again by the next process
        return None
    return OnnxQueryEncoder(session)


def int8_path(graph: Path) -> Path:
    return graph.with_name(f"{graph.stem}-int8.onnx")


def int8_graph(graph: Path) -> Path:
    """``graph`` with its weights stored as 8-bit integers (one scale per output channel) and its activations
    quantized as it runs, written once beside it: the matrix products run on integer instructions, about 2.3 times
    less CPU per text than the float graph here, at a cosine of about 0.99 to the float vectors
    (``docs/development/decisions/int8-encoder.md``)."""
    target = int8_path(graph)
    if target.exists():
        return target
    from onnxruntime.quantization import QuantType, quantize_dynamic

    partial = target.with_suffix(f".{os.getpid()}.part")  # processes quantizing at once each write their own
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer logs every tensor it leaves alone, and advice, on the root logger
    try:
        quantize_dynamic(str(graph), str(partial), per_channel=True, weight_type=QuantType.QInt8)
        os.replace(partial, target)
    finally:
        root.setLevel(level)
        partial.unlink(missing_ok=True)
    return target


def _export(transformer, tokenizer, graph: Path) -> None:
    import torch

    class _LastHidden(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    example = tokenizer(["warm up the query encoder"], return_tensors="pt")
    training = transformer.training
    axes = {0: "batch", 1: "tokens"}
    graph.parent.mkdir(parents=True, exist_ok=True)
    partial = graph.with_suffix(f".{os.getpid()}.part")  # processes exporting at once each write their own
    try:
        # The exporter warns about shape-dependent branches and its own deprecation; the caller's check decides.
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")
            # (The exporter puts the module back in the mode it found it: the wrapper must be in eval mode too, or
            # the model comes back in training mode with dropout on.)
            torch.onnx.export(
                _LastHidden(transformer).eval(),
                (example["input_ids"], example["attention_mask"]),
                str(partial),
                input_names=["input_ids", "attention_mask"],
                output_names=["last_hidden_state"],
                dynamic_axes={"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes},
                opset_version=17,
                dynamo=False,
            )
        os.replace(partial, graph)
    finally:
        transformer.train(training)
        partial.unlink(missing_ok=True)
