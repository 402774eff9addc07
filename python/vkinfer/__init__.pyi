# Type stubs of the vkinfer package (the native module's classes and functions are re-exported
# here; docs/PYTHON.md describes them).
import enum
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

PathLike = Union[str, "os.PathLike[str]"]
ArrayLike = Any  # a NumPy array, or an object with __dlpack__ or the array interface
Shapes = Mapping[str, Sequence[int]]

class Error(Exception):
    code: str
    message: str
    vk_result: int
    def __init__(self, message: str = ..., vk_result: int = ...) -> None: ...

class InvalidArgumentError(Error, ValueError): ...
class NotFoundError(Error, LookupError): ...
class ParseError(Error, ValueError): ...
class UnsupportedError(Error, NotImplementedError): ...
class ShapeError(Error, ValueError): ...
class VulkanError(Error, RuntimeError): ...
class ValidationError(Error, RuntimeError): ...
class DeviceLostError(Error, RuntimeError): ...
class InternalError(Error, RuntimeError): ...
class OutOfMemoryError(Error, MemoryError): ...

class TensorDesc:
    """A model input or output as the model declares it."""
    @property
    def name(self) -> str: ...
    @property
    def dtype(self) -> str: ...
    @property
    def shape(self) -> Optional[List[Optional[int]]]: ...
    @property
    def dim_names(self) -> List[str]: ...
    @property
    def rank_known(self) -> bool: ...
    @property
    def has_default(self) -> bool: ...

class ModelInfo:
    """What a model file declares (Model.inspect)."""
    ir_version: int
    producer_name: str
    producer_version: str
    domain: str
    model_version: int
    graph_name: str
    doc_string: str
    opset: int
    opset_imports: List[Tuple[str, int]]
    inputs: List[TensorDesc]
    outputs: List[TensorDesc]
    node_count: int
    op_counts: Dict[str, int]
    initializer_count: int
    parameters: int
    weight_bytes: int
    external_weight_bytes: int
    unsupported: List[Tuple[str, str, str]]

class Model:
    """A parsed ONNX model."""
    newest_opset: int
    @staticmethod
    def load(path: PathLike) -> Model: ...
    @staticmethod
    def from_bytes(data: bytes, label: str = ..., external_data_folder: Optional[PathLike] = ...) -> Model: ...
    @staticmethod
    def inspect(path: PathLike) -> ModelInfo: ...
    @property
    def inputs(self) -> List[TensorDesc]: ...
    @property
    def outputs(self) -> List[TensorDesc]: ...
    @property
    def opset(self) -> int: ...
    @property
    def node_count(self) -> int: ...
    @property
    def label(self) -> str: ...

class DeviceInfo:
    """A Vulkan physical device."""
    index: int
    name: str
    type: str
    driver_name: str
    driver_info: str
    api_version: str
    vendor_id: int
    device_id: int
    fp16_arithmetic: bool
    storage_16bit: bool
    int8_arithmetic: bool
    int64_arithmetic: bool
    external_memory_fd: bool
    dma_buf: bool
    external_semaphore_fd: bool
    timeline_semaphore: bool
    cooperative_matrix: bool
    timestamps: bool
    subgroup_size: int
    shared_memory_bytes: int
    max_storage_buffer_range: int
    device_local_bytes: int
    @property
    def uuid(self) -> bytes: ...

def devices() -> List[DeviceInfo]:
    """The Vulkan devices, in loader order."""

class Context:
    """A Vulkan device with its queue and pipeline cache, shared by sessions."""
    def __init__(self, device: Optional[int] = ..., validate: bool = ...) -> None: ...
    @property
    def device(self) -> DeviceInfo: ...
    @property
    def validation_enabled(self) -> bool: ...
    @property
    def device_lost(self) -> bool: ...
    def take_validation_messages(self) -> List[str]: ...
    def memory_stats(self) -> Dict[str, Any]: ...
    def reset_peak_memory(self) -> None: ...

class Ticket:
    """A submission in flight."""
    value: int
    frame: int

class Session:
    """A model bound to a device, run with arrays in and out (vkinfer's own API)."""
    def __init__(self, model: Union[Model, PathLike, bytes], context: Optional[Context] = ..., *,
                 device: Optional[int] = ..., validate: bool = ..., precision: str = ..., sync: str = ...,
                 frames_in_flight: int = ..., profile: bool = ..., timestamps: bool = ...,
                 max_cached_plans: int = ...) -> None: ...
    @overload
    def run(self, inputs: Mapping[str, ArrayLike]) -> Dict[str, np.ndarray]: ...
    @overload
    def run(self, inputs: Mapping[str, ArrayLike], *, stats: bool) -> Any: ...
    def submit(self, inputs: Mapping[str, ArrayLike]) -> Ticket: ...
    def wait(self, ticket: Ticket, *, stats: bool = ...) -> Any: ...
    def is_done(self, ticket: Ticket) -> bool: ...
    def prepare(self, shapes: Optional[Shapes] = ...) -> None: ...
    def plan(self, shapes: Optional[Shapes] = ...) -> Dict[str, Any]: ...
    def bench(self, inputs: Optional[Mapping[str, ArrayLike]] = ..., *, iters: int = ..., warmup: int = ...,
              profile: bool = ..., shapes: Optional[Shapes] = ...) -> Dict[str, Any]: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Session: ...
    def __exit__(self, *args: Any) -> None: ...
    @property
    def model(self) -> Model: ...
    @property
    def context(self) -> Context: ...
    @property
    def inputs(self) -> List[TensorDesc]: ...
    @property
    def outputs(self) -> List[TensorDesc]: ...
    @property
    def precision(self) -> str: ...
    @property
    def sync(self) -> str: ...
    @property
    def frames_in_flight(self) -> int: ...

def plan(model: Model, shapes: Optional[Shapes] = ..., *, precision: str = ..., sync: str = ...) -> Dict[str, Any]:
    """The plan JSON of `vkinfer plan --json` as a dict."""
def plan_text(model: Model, shapes: Optional[Shapes] = ..., *, precision: str = ..., sync: str = ...) -> str: ...
def plan_summary(model: Model, shapes: Optional[Shapes] = ..., *, precision: str = ..., sync: str = ...) -> Dict[str, int]: ...

def load_image(path: PathLike) -> npt.NDArray[np.uint8]: ...
def save_image(path: PathLike, image: ArrayLike, quality: int = ...) -> None: ...
def image_to_tensor(image: ArrayLike, channels: int = ..., *, mean: Union[float, Sequence[float], None] = ...,
                    scale: Union[float, Sequence[float], None] = ...) -> npt.NDArray[np.float32]: ...
def tensor_to_image(tensor: ArrayLike, *, mean: Union[float, Sequence[float], None] = ...,
                    scale: Union[float, Sequence[float], None] = ...) -> npt.NDArray[np.uint8]: ...
def load_tensor(path: PathLike) -> np.ndarray: ...
def save_tensor(path: PathLike, array: ArrayLike) -> None: ...
def validation_requested_by_environment() -> bool: ...

def default_upscaler() -> str: ...
def upscale(image: ArrayLike, model: Optional[PathLike] = ..., *, tile: Optional[int] = ..., overlap: Optional[int] = ...,
            mean: Union[float, Sequence[float], None] = ..., scale: Union[float, Sequence[float], None] = ...,
            precision: str = ..., sync: str = ..., context: Optional[Context] = ..., device: Optional[int] = ...,
            validate: bool = ...) -> npt.NDArray[np.uint8]:
    """Upscales an image as `vkinfer upscale` does (the shipped x2 model by default)."""

# ONNX Runtime's interface
def get_all_providers() -> List[str]: ...
def get_available_providers() -> List[str]: ...
def get_device() -> str: ...

class GraphOptimizationLevel(enum.IntEnum):
    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99

class ExecutionMode(enum.IntEnum):
    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1

class SessionOptions:
    """ONNX Runtime's SessionOptions; vkinfer uses precision, sync, device_index, frames_in_flight, validate."""
    precision: str
    sync: str
    device_index: Optional[int]
    frames_in_flight: int
    validate: bool
    graph_optimization_level: GraphOptimizationLevel
    intra_op_num_threads: int
    inter_op_num_threads: int
    execution_mode: ExecutionMode
    execution_order: int
    log_severity_level: int
    log_verbosity_level: int
    logid: str
    enable_mem_pattern: bool
    enable_mem_reuse: bool
    enable_cpu_mem_arena: bool
    use_deterministic_compute: bool
    profile_file_prefix: str
    enable_profiling: bool
    optimized_model_filepath: str
    def add_session_config_entry(self, key: str, value: str) -> None: ...
    def get_session_config_entry(self, key: str) -> str: ...

class RunOptions:
    log_severity_level: int
    log_verbosity_level: int
    logid: str
    terminate: bool
    only_execute_path_to_fetches: bool

class NodeArg:
    """name, type ("tensor(float)") and shape (ints, symbolic names as strings, None)."""
    name: str
    type: str
    shape: Optional[List[Union[int, str, None]]]

class ModelMetadata:
    producer_name: str
    graph_name: str
    graph_description: str
    domain: str
    description: str
    version: int
    custom_metadata_map: Dict[str, str]

class InferenceSession:
    """ONNX Runtime's InferenceSession on vkinfer."""
    def __init__(self, path_or_bytes: Union[PathLike, bytes, Any], sess_options: Optional[SessionOptions] = ...,
                 providers: Optional[Sequence[Union[str, Tuple[str, Dict[str, Any]]]]] = ...,
                 provider_options: Optional[Sequence[Dict[str, Any]]] = ...) -> None: ...
    @property
    def native(self) -> Session: ...
    def get_inputs(self) -> List[NodeArg]: ...
    def get_outputs(self) -> List[NodeArg]: ...
    def get_overridable_initializers(self) -> List[NodeArg]: ...
    def get_modelmeta(self) -> ModelMetadata: ...
    def get_providers(self) -> List[str]: ...
    def get_provider_options(self) -> Dict[str, Dict[str, str]]: ...
    def get_session_options(self) -> SessionOptions: ...
    def run(self, output_names: Optional[Sequence[str]], input_feed: Mapping[str, Any],
            run_options: Optional[RunOptions] = ...) -> List[np.ndarray]: ...
    def close(self) -> None: ...
    def __enter__(self) -> InferenceSession: ...
    def __exit__(self, *exc: Any) -> None: ...
