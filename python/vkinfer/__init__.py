"""vkinfer: neural-network inference on Vulkan compute, from Python.

Two interfaces over one engine (docs/PYTHON.md):

* ONNX Runtime's, so that switching is one line (``import vkinfer as ort``)::

      sess = vkinfer.InferenceSession("model.onnx")
      (y,) = sess.run(None, {"input": x})

* vkinfer's own, for what ONNX Runtime has no word for: :func:`devices`, :class:`Model`,
  :class:`Context`, :class:`Session` (``precision="fp16"``, ``sync="conservative"``,
  ``validate=True``, ``plan()``, ``bench()``), :func:`upscale`, image and tensor files.

Arrays: NumPy in and out; inputs may also be any object with ``__dlpack__`` or the array
interface whose memory the host can read (read in place, no copy); outputs are NumPy arrays
that own their memory and export it through DLPack (``torch.from_dlpack(out)`` shares it).
Errors: :class:`Error` and one subclass per status code (``vkinfer._errors``).
"""

from __future__ import annotations

from ._errors import (DeviceLostError, Error, InternalError, InvalidArgumentError, NotFoundError, OutOfMemoryError,
                      ParseError, ShapeError, UnsupportedError, ValidationError, VulkanError)
from ._vkinfer import (Context, DeviceInfo, Model, ModelInfo, Session, TensorDesc, Ticket, __version__, devices,
                       image_to_tensor, load_image, load_tensor, plan, plan_summary, plan_text, save_image, save_tensor,
                       tensor_to_image, validation_requested_by_environment)
from ._ort import (ExecutionMode, GraphOptimizationLevel, InferenceSession, ModelMetadata, NodeArg, RunOptions,
                   SessionOptions, get_all_providers, get_available_providers, get_device)
from ._upscale import default_upscaler, upscale

__all__ = [
    "Context", "DeviceInfo", "DeviceLostError", "Error", "ExecutionMode", "GraphOptimizationLevel", "InferenceSession",
    "InternalError", "InvalidArgumentError", "Model", "ModelInfo", "ModelMetadata", "NodeArg", "NotFoundError",
    "OutOfMemoryError", "ParseError", "RunOptions", "Session", "SessionOptions", "ShapeError", "TensorDesc", "Ticket",
    "UnsupportedError", "ValidationError", "VulkanError", "__version__", "default_upscaler", "devices",
    "get_all_providers", "get_available_providers", "get_device", "image_to_tensor", "load_image", "load_tensor",
    "plan", "plan_summary", "plan_text", "save_image", "save_tensor", "tensor_to_image", "upscale",
    "validation_requested_by_environment",
]
