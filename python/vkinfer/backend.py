"""vkinfer as an ONNX backend (``onnx.backend.base.Backend``), so that ONNX's own test runner,
``onnx.backend.test.BackendTest``, runs against vkinfer::

    import onnx.backend.test, vkinfer.backend
    globals().update(onnx.backend.test.BackendTest(vkinfer.backend, __name__).test_cases)

Devices: the runner's "CPU" means inputs and outputs in host memory (the work runs on
vkinfer's Vulkan device; "CPU:1" picks Vulkan device 1); "CUDA" is not supported. Sessions of
one device share one Context. Keyword arguments of prepare/run_model: precision, sync,
validate (vkinfer.Session's); another is a TypeError naming it.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np
import onnx
from onnx import helper
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

from ._vkinfer import Context, Model, Session

# python3-onnx 1.12's runner (onnx/backend/test/runner) compares output dtypes with np.object,
# the alias of `object` that NumPy 1.24 removed: on Debian 12 every case of ONNX's own runner
# then fails with AttributeError, whatever the backend. The alias is restored as it was where
# it is missing.
if "object" not in np.__dict__:
    np.object = object  # type: ignore[attr-defined]

_contexts: Dict[Tuple[int, bool], Context] = {}
_contexts_lock = threading.Lock()
_SESSION_OPTIONS = ("precision", "sync", "validate")


def _context(device: str, validate: bool) -> Context:
    index = Device(device).device_id
    with _contexts_lock:
        key = (index, validate)
        if key not in _contexts:
            _contexts[key] = Context(device=index if ":" in device else None, validate=validate)
        return _contexts[key]


class VkinferRep(BackendRep):
    """A prepared model: ``run(inputs)`` takes the inputs in the model's input order (a list,
    one array, or a dict by name) and returns the outputs as a named tuple."""

    def __init__(self, session: Session):
        self.session = session
        self.input_names = [d.name for d in session.inputs if not d.has_default]
        self.output_names = [d.name for d in session.outputs]

    def run(self, inputs: Any, **kwargs: Any) -> Tuple[Any, ...]:
        if kwargs:
            raise TypeError("VkinferRep.run: unexpected argument(s) " + ", ".join(sorted(kwargs)))
        if isinstance(inputs, dict):
            feed = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            if len(inputs) > len(self.input_names):
                raise ValueError(f"{len(inputs)} inputs given; the model takes {len(self.input_names)}")
            # (np.require, not np.ascontiguousarray, which makes scalars 1-D)
            feed = {n: np.require(x, requirements="C") for n, x in zip(self.input_names, inputs)}
        outputs = self.session.run(feed)
        return namedtupledict("Outputs", self.output_names)(*[outputs[n] for n in self.output_names])


class VkinferBackend(Backend):
    """onnx.backend.base.Backend on vkinfer."""

    @classmethod
    def supports_device(cls, device: str) -> bool:
        try:
            return Device(device).type == DeviceType.CPU
        except (AttributeError, ValueError):
            return False

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> VkinferRep:
        unknown = sorted(set(kwargs) - set(_SESSION_OPTIONS))
        if unknown:
            raise TypeError("prepare: unexpected argument(s) " + ", ".join(unknown))
        if not cls.supports_device(device):
            raise ValueError(f"device '{device}': vkinfer's backend takes 'CPU' (host memory in and out)")
        if isinstance(model, onnx.ModelProto):  # named in messages by its graph
            loaded = Model.from_bytes(model.SerializeToString(), label=f"model '{model.graph.name}'")
        elif isinstance(model, bytes):
            loaded = Model.from_bytes(model)
        else:
            loaded = Model.load(model)
        validate = bool(kwargs.pop("validate", False))
        return VkinferRep(Session(loaded, _context(device, validate), **kwargs))

    @classmethod
    def run_model(cls, model: Any, inputs: Any, device: str = "CPU", **kwargs: Any) -> Tuple[Any, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: onnx.NodeProto, inputs: Any, device: str = "CPU",
                 outputs_info: Optional[Sequence[Tuple[np.dtype, Tuple[int, ...]]]] = None,
                 **kwargs: Any) -> Tuple[Any, ...]:
        """Runs one node on the given inputs (arrays in the order of node.input), as a model of
        that node alone at ``opset_version`` (default: the newest of this onnx)."""
        opset = kwargs.pop("opset_version", onnx.defs.onnx_opset_version())
        if isinstance(inputs, dict):
            inputs = [inputs[n] for n in node.input if n]
        arrays = [np.asarray(x) for x in inputs]
        names = [n for n in node.input if n]
        graph_inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
                        for n, a in zip(names, arrays)]
        if outputs_info is not None:
            graph_outputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.dtype(t)), s)
                             for n, (t, s) in zip(node.output, outputs_info)]
        else:
            graph_outputs = [helper.make_empty_tensor_value_info(n) for n in node.output if n]
        graph = helper.make_graph([node], f"{node.op_type}_node", graph_inputs, graph_outputs)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        if outputs_info is None:  # output types from ONNX's shape inference
            model = onnx.shape_inference.infer_shapes(model)
            inferred = {v.name: v for v in model.graph.value_info}
            for o in model.graph.output:
                if o.name in inferred:
                    o.CopyFrom(inferred[o.name])
        return cls.run_model(model, dict(zip(names, arrays)), device, **kwargs)


prepare = VkinferBackend.prepare
run_model = VkinferBackend.run_model
run_node = VkinferBackend.run_node
supports_device = VkinferBackend.supports_device
