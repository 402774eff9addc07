"""ONNX Runtime's Python interface over vkinfer, so that switching is a one-line change
(``import vkinfer as ort``). What maps and what does not: docs/PYTHON.md, "ONNX Runtime"."""

from __future__ import annotations

import enum
import os
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from ._arrays import from_dlpack
from ._errors import InvalidArgumentError
from ._vkinfer import Model, Session, TensorDesc

PROVIDER = "VkinferExecutionProvider"

# vkinfer's dtype names -> ONNX Runtime's type strings.
_ORT_TYPES = {
    "float32": "tensor(float)", "float16": "tensor(float16)", "float64": "tensor(double)",
    "int8": "tensor(int8)", "int16": "tensor(int16)", "int32": "tensor(int32)", "int64": "tensor(int64)",
    "uint8": "tensor(uint8)", "uint16": "tensor(uint16)", "uint32": "tensor(uint32)", "uint64": "tensor(uint64)",
    "bool": "tensor(bool)", "string": "tensor(string)",
}


def get_all_providers() -> List[str]:
    """The execution providers vkinfer knows: its own (every model runs on its Vulkan device)."""
    return [PROVIDER]


def get_available_providers() -> List[str]:
    return [PROVIDER]


def get_device() -> str:
    """ONNX Runtime's build device: vkinfer runs on a Vulkan device ("GPU", even where that is
    Mesa's lavapipe on the CPU)."""
    return "GPU"


class GraphOptimizationLevel(enum.IntEnum):
    """Accepted for compatibility; vkinfer always plans the whole graph (fusions, memory, barriers)."""

    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99


class ExecutionMode(enum.IntEnum):
    """Accepted for compatibility; vkinfer's plans run independent dispatches in waves either way."""

    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class _Options:
    """Attributes from a fixed table: setting another names it and says which exist."""

    _VKINFER: Dict[str, Any] = {}   # what vkinfer uses: name -> default
    _ACCEPTED: Dict[str, Any] = {}  # ONNX Runtime's, without effect here: name -> default

    def __init__(self) -> None:
        for name, value in {**self._ACCEPTED, **self._VKINFER}.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._VKINFER and name not in self._ACCEPTED:
            known = ", ".join(sorted({*self._VKINFER, *self._ACCEPTED}))
            raise AttributeError(f"{type(self).__name__} has no option '{name}' in vkinfer (options: {known})")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        values = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._VKINFER)
        return f"{type(self).__name__}({values})"


class SessionOptions(_Options):
    """ONNX Runtime's SessionOptions. vkinfer uses:

    * ``precision``: "fp32" (default) or "fp16" (float16 weights and activations);
    * ``sync``: "minimal" (default) or "conservative" (a barrier after every dispatch);
    * ``device_index``: a Vulkan device from vkinfer.devices() (None: the default choice;
      a provider option ``device_id`` does the same);
    * ``frames_in_flight``: submissions that may run at once (1 to 16);
    * ``validate``: the Khronos validation layer with synchronization validation.

    ONNX Runtime's options below are accepted and have no effect (vkinfer always plans the
    whole graph and runs on the GPU): graph_optimization_level, intra_op_num_threads,
    inter_op_num_threads, execution_mode, execution_order, log_severity_level,
    log_verbosity_level, logid, enable_mem_pattern, enable_mem_reuse, enable_cpu_mem_arena,
    use_deterministic_compute (vkinfer is deterministic), profile_file_prefix. Refused when
    set, since vkinfer cannot do them: enable_profiling=True (use Session.bench(profile=True))
    and optimized_model_filepath. Any other attribute is an AttributeError naming it.
    """

    _VKINFER = {"precision": "fp32", "sync": "minimal", "device_index": None, "frames_in_flight": 1, "validate": False}
    _ACCEPTED = {
        "graph_optimization_level": GraphOptimizationLevel.ORT_ENABLE_ALL, "intra_op_num_threads": 0,
        "inter_op_num_threads": 0, "execution_mode": ExecutionMode.ORT_SEQUENTIAL, "execution_order": 0,
        "log_severity_level": 2, "log_verbosity_level": 0, "logid": "", "enable_mem_pattern": True,
        "enable_mem_reuse": True, "enable_cpu_mem_arena": True, "use_deterministic_compute": False,
        "profile_file_prefix": "onnxruntime_profile_", "enable_profiling": False, "optimized_model_filepath": "",
    }
    # Config entries (add_session_config_entry): vkinfer's keys set the options above.
    _CONFIG_PREFIXES = ("session.", "optimization.", "ep.", "mlas.", "kernel.")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "enable_profiling" and value:
            raise ValueError("enable_profiling: vkinfer writes no ONNX Runtime profile; "
                             "vkinfer.Session(...).bench(profile=True) times every dispatch")
        if name == "optimized_model_filepath" and value:
            raise ValueError("optimized_model_filepath: vkinfer does not write optimized models "
                             "(vkinfer.plan() shows what it runs)")
        super().__setattr__(name, value)

    def add_session_config_entry(self, key: str, value: str) -> None:
        """``vkinfer.<option>`` sets an option above (``vkinfer.precision`` = "fp16"); ONNX
        Runtime's own keys (session.*, optimization.*, ep.*, ...) are accepted without effect;
        another key is a ValueError naming it."""
        if key.startswith("vkinfer."):
            name = key[len("vkinfer."):]
            if name not in self._VKINFER:
                raise ValueError(f"session config '{key}': vkinfer's keys are "
                                 + ", ".join("vkinfer." + k for k in self._VKINFER))
            default = self._VKINFER[name]
            if isinstance(default, bool):
                value = str(value).lower() in ("1", "true", "yes")
            elif name in ("frames_in_flight", "device_index"):
                value = int(value)
            setattr(self, name, value)
        elif not key.startswith(self._CONFIG_PREFIXES):
            raise ValueError(f"session config '{key}' is unknown to vkinfer (its keys: vkinfer.precision, vkinfer.sync, "
                             "vkinfer.device_index, vkinfer.frames_in_flight, vkinfer.validate)")
        self.__dict__.setdefault("_config", {})[key] = str(value)

    def get_session_config_entry(self, key: str) -> str:
        return self.__dict__.get("_config", {})[key]


class RunOptions(_Options):
    """ONNX Runtime's RunOptions: accepted, without effect (a run cannot be cancelled)."""

    _ACCEPTED = {"log_severity_level": 2, "log_verbosity_level": 0, "logid": "", "terminate": False,
                 "only_execute_path_to_fetches": False}


class NodeArg:
    """An input or output as ONNX Runtime describes it: ``name``, ``type`` ("tensor(float)")
    and ``shape`` (ints, the symbolic name of a dynamic dimension as a string, None for an
    unnamed one; None when the model declares no shape)."""

    __slots__ = ("name", "type", "shape")

    def __init__(self, desc: TensorDesc):
        self.name = desc.name
        self.type = _ORT_TYPES.get(desc.dtype, f"tensor({desc.dtype})")
        shape = desc.shape
        if shape is not None:
            names = desc.dim_names
            shape = [d if d is not None else (names[i] if i < len(names) and names[i] else None)
                     for i, d in enumerate(shape)]
        self.shape = shape

    def __repr__(self) -> str:
        return f"NodeArg(name='{self.name}', type='{self.type}', shape={self.shape})"


class ModelMetadata:
    """ONNX Runtime's ModelMetadata: producer_name, graph_name, domain, description (the
    model's doc_string), version; and graph_description and custom_metadata_map (the graph's
    doc_string and metadata_props), read with the onnx package where it is installed (vkinfer's
    Model.inspect does not report them), else empty."""

    def __init__(self, info, model_bytes: Optional[bytes]) -> None:
        self.producer_name = info.producer_name
        self.graph_name = info.graph_name
        self.domain = info.domain
        self.description = info.doc_string
        self.version = info.model_version
        self.graph_description = ""
        self.custom_metadata_map: Dict[str, str] = {}
        try:
            import onnx
        except ImportError:
            return
        proto = onnx.ModelProto()
        proto.ParseFromString(model_bytes)
        self.graph_description = proto.graph.doc_string
        self.custom_metadata_map = {p.key: p.value for p in proto.metadata_props}

    def __repr__(self) -> str:
        return f"ModelMetadata(producer_name={self.producer_name!r}, graph_name={self.graph_name!r}, version={self.version})"


def _providers(providers, provider_options) -> tuple:
    """(names, options per name) from ONNX Runtime's forms: names, (name, options) pairs."""
    names, options = [], []
    for i, p in enumerate(providers or []):
        if isinstance(p, (tuple, list)) and len(p) == 2 and isinstance(p[0], str):
            name, opts = p[0], dict(p[1] or {})
        elif isinstance(p, str):
            name = p
            opts = dict(provider_options[i]) if provider_options and i < len(provider_options) else {}
        else:
            raise TypeError(f"providers[{i}]: expected a provider name or a (name, options) pair, got {p!r}")
        if not name.endswith("ExecutionProvider"):
            raise ValueError(f"provider '{name}' is not an execution provider name "
                             f"(vkinfer's is '{PROVIDER}'; other ONNX Runtime names run on it too)")
        names.append(name)
        options.append(opts)
    if provider_options and len(provider_options) != len(names):
        raise ValueError(f"provider_options has {len(provider_options)} entries for {len(names)} providers")
    return names, options


class InferenceSession:
    """ONNX Runtime's InferenceSession on vkinfer: load a model, describe its inputs and
    outputs, run it with NumPy arrays.

    ``InferenceSession(path_or_bytes, sess_options=None, providers=None, provider_options=None)``

    path_or_bytes: a model file, or serialized ModelProto bytes (an ``onnx.ModelProto`` is
    serialized for you). providers: any ONNX Runtime provider names (``"CUDAExecutionProvider"``,
    ``"CPUExecutionProvider"``, ...) are accepted and run on vkinfer's Vulkan device, so ONNX
    Runtime code works unchanged; a provider option ``device_id`` picks the device. As a
    convenience the second positional argument may be the providers list instead of options.
    sess_options: :class:`SessionOptions` (precision, sync, device_index, frames_in_flight,
    validate). Errors are :class:`vkinfer.Error` subclasses carrying the engine's message.

    run(output_names, input_feed) returns the outputs asked for (all when None) as NumPy arrays,
    in that order. Inputs are read in place; non-contiguous arrays, lists and scalars are
    converted first (as ONNX Runtime does), but never cast: a float64 array for a float input is
    an error naming the input, as in ONNX Runtime. Threads may share the session.
    """

    def __init__(self, path_or_bytes, sess_options: Optional[SessionOptions] = None, providers=None,
                 provider_options=None, **kwargs):
        if kwargs:
            raise TypeError("InferenceSession: unexpected argument(s) " + ", ".join(sorted(kwargs)))
        if isinstance(sess_options, (list, tuple)) and providers is None:
            sess_options, providers = None, sess_options  # InferenceSession(path, ["CUDAExecutionProvider"])
        if sess_options is None:
            sess_options = SessionOptions()
        elif not isinstance(sess_options, SessionOptions):
            raise TypeError(f"sess_options: expected a vkinfer.SessionOptions, got a {type(sess_options).__name__}")
        self._options = sess_options
        names, opts = _providers(providers, provider_options)
        self._providers = names or [PROVIDER]
        self._provider_options = opts or [{}]
        device = sess_options.device_index
        for o in opts:
            if "device_id" in o and device is None:
                device = int(o["device_id"])

        if hasattr(path_or_bytes, "SerializeToString"):  # an onnx.ModelProto
            path_or_bytes = path_or_bytes.SerializeToString()
        if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            data = bytes(path_or_bytes)
            self._model_path = None
            model = Model.from_bytes(data)
            self._model_bytes = data
        elif isinstance(path_or_bytes, (str, os.PathLike)):
            self._model_path = os.fspath(path_or_bytes)
            model = Model.load(self._model_path)
        else:
            raise TypeError(f"path_or_bytes: expected a model path or ModelProto bytes, got a {type(path_or_bytes).__name__}")
        self._session = Session(model, device=device, validate=bool(sess_options.validate),
                                precision=sess_options.precision, sync=sess_options.sync,
                                frames_in_flight=int(sess_options.frames_in_flight))
        self._inputs = [NodeArg(d) for d in model.inputs if not d.has_default]
        self._overridable = [NodeArg(d) for d in model.inputs if d.has_default]
        self._outputs = [NodeArg(d) for d in model.outputs]
        self._output_names = [o.name for o in self._outputs]

    @property
    def native(self) -> Session:
        """The vkinfer.Session underneath (plan(), bench(), submit()/wait(), ...)."""
        return self._session

    def get_inputs(self) -> List[NodeArg]:
        """The inputs a run must give (inputs with a default are get_overridable_initializers())."""
        return list(self._inputs)

    def get_outputs(self) -> List[NodeArg]:
        return list(self._outputs)

    def get_overridable_initializers(self) -> List[NodeArg]:
        """Inputs with a default value (an initializer of the same name): a run may give them."""
        return list(self._overridable)

    def get_modelmeta(self) -> ModelMetadata:
        if self._model_path is not None:
            with open(self._model_path, "rb") as f:
                data = f.read()
            return ModelMetadata(Model.inspect(self._model_path), data)
        with tempfile.TemporaryDirectory() as folder:  # Model.inspect reads files
            path = os.path.join(folder, "model.onnx")
            with open(path, "wb") as f:
                f.write(self._model_bytes)
            return ModelMetadata(Model.inspect(path), self._model_bytes)

    def get_providers(self) -> List[str]:
        return list(self._providers)

    def get_provider_options(self) -> Dict[str, Dict[str, str]]:
        return {n: {k: str(v) for k, v in o.items()} for n, o in zip(self._providers, self._provider_options)}

    def get_session_options(self) -> SessionOptions:
        return self._options

    def run(self, output_names: Optional[Sequence[str]], input_feed: Dict[str, Any],
            run_options: Optional[RunOptions] = None) -> List[np.ndarray]:
        """Runs the model; returns the outputs named in output_names (all, in the model's order,
        when None or empty) as NumPy arrays."""
        if run_options is not None and not isinstance(run_options, RunOptions):
            raise TypeError(f"run_options: expected a vkinfer.RunOptions, got a {type(run_options).__name__}")
        if not isinstance(input_feed, dict):
            raise TypeError(f"input_feed: expected a dict of input name -> array, got a {type(input_feed).__name__}")
        names = list(output_names) if output_names else self._output_names
        for n in names:
            if n not in self._output_names:
                raise InvalidArgumentError(f"output '{n}' is not an output of the model (its outputs: "
                                           + ", ".join(f"'{o}'" for o in self._output_names) + ")")
        outputs = self._session.run({k: _host_array(v) for k, v in input_feed.items()})
        return [outputs[n] for n in names]

    def close(self) -> None:
        """Frees the device memory now (not in ONNX Runtime); later runs raise InvalidArgumentError."""
        self._session.close()

    def __enter__(self) -> "InferenceSession":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<vkinfer.InferenceSession {self._session!r}>"


def _host_array(value):
    """What ONNX Runtime would take: arrays as they are (contiguous copies of strided ones),
    DLPack and array-interface objects read in place, lists and scalars through numpy."""
    if not isinstance(value, np.ndarray):
        value = from_dlpack(value, "input") if hasattr(value, "__dlpack__") else np.asarray(value)
    return np.require(value, requirements="C")  # (np.ascontiguousarray makes scalars 1-D)
